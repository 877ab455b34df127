/**
 * Dashboard benchmark: how long the journal explorer's first page and a wallet's statement take
 * to show in Chromium when the tenant's journal holds 100,000 entries. The whole system runs as
 * the README starts it (scripts/start.ts, the gateway serving the built app); the history is
 * written in bulk through the services' own code (scripts/lib/history-builder.ts) between the
 * tenant's two wallets, so each wallet's statement is about as long as the journal.
 *
 *   npm run bench:dashboard   BENCH_DASHBOARD_ENTRIES=100000 BENCH_DASHBOARD_ROUNDS=9
 *
 * Each screen is timed from two starts, alternated: a click in the app on the wallets list (the
 * screen's code and its requests) and a fresh load of the screen's address (the app, the session and the
 * screen). The time runs until the table's rows of the first page are on the screen. Then the
 * export of every transfer as CSV, as the signed-in viewer downloads it: its first byte, its last,
 * and the gateway's memory while it streams (BENCH_DASHBOARD_EXPORT_ROUNDS, default 3).
 */
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { createDb, type Db, DEFAULT_AMQP_URL, DEFAULT_DATABASE_URL } from '@wallet/kit';
import { WalletClient } from '@wallet/sdk';
import type { Page } from 'playwright-core';
import { dashboardInitialJavaScript } from './build';
import { launchChromium, signInAt } from './lib/dashboard-browser';
import { buildHistory } from './lib/history-builder';
import { createTenant } from './lib/scale-setup';
import { calibrationMs, dropSystem, percentile, startSystem } from './lib/system';

const ENTRIES = Number(process.env.BENCH_DASHBOARD_ENTRIES ?? 100_000);
const ROUNDS = Number(process.env.BENCH_DASHBOARD_ROUNDS ?? 9);
const EXPORT_ROUNDS = Number(process.env.BENCH_DASHBOARD_EXPORT_ROUNDS ?? 3);
const CATCH_UP_TIMEOUT_MS = 10 * 60_000;

const serverUrl = process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL;
const amqpServerUrl = process.env.AMQP_URL ?? DEFAULT_AMQP_URL;
const runId = `benchdash${Date.now().toString(36)}`;
const SYSTEM_KEY = `sys_bench_${randomUUID()}`;
const VIEWER = { email: `finance@${runId}.example`, password: 'benchmark passphrase of the finance viewer' };

/** What a screen shows as its first page, and the API read behind it. */
interface Screen {
  name: string;
  /** The address a fresh load opens. */
  path: string;
  /** From the wallets list, what leads to it in the app (a click, a search). */
  navigate: (page: Page) => Promise<void>;
  /** Resolves once the screen shows what it is for. */
  ready: (page: Page) => Promise<void>;
  apiPath: string;
}

/** A table's first page is on the screen once its last row is. */
const tableRows = (table: string, rows: number) => (page: Page) =>
  page
    .getByRole('table', { name: table })
    .locator('tbody tr')
    .nth(rows - 1)
    .waitFor();

interface Timing {
  /** Until the last row of the first page is on the screen. */
  shownMs: number;
  /** Until the screen's API read was answered. */
  answeredMs: number;
}

async function timed(page: Page, screen: Screen, start: () => Promise<unknown>): Promise<Timing> {
  const answered = page.waitForResponse((response) => new URL(response.url()).pathname === screen.apiPath);
  const started = performance.now();
  await start();
  await answered;
  const answeredMs = performance.now() - started;
  await screen.ready(page);
  return { shownMs: performance.now() - started, answeredMs };
}

/** The wallets list, where each in-app timing starts: a screen with one light read, fully shown. */
async function walletsList(page: Page, dashboardUrl: string): Promise<void> {
  await page.goto(`${dashboardUrl}/wallets`);
  await page.getByRole('table', { name: 'Wallets' }).locator('tbody tr').first().waitFor();
}

function summary(runs: Timing[]): string {
  const shown = runs.map((run) => run.shownMs).sort((a, b) => a - b);
  const answered = runs.map((run) => run.answeredMs).sort((a, b) => a - b);
  const ms = (value: number) => value.toFixed(0).padStart(5);
  return `median ${ms(percentile(shown, 0.5))} ms, p90 ${ms(percentile(shown, 0.9))} ms, max ${ms(shown[shown.length - 1] ?? 0)} ms (API answered: median ${ms(percentile(answered, 0.5))} ms)`;
}

/** Waits until payments' and analytics' read models hold every entry, so the measurements run on a machine at rest. */
async function waitForReadModels(client: WalletClient, entries: number): Promise<number> {
  const started = performance.now();
  const deadline = Date.now() + CATCH_UP_TIMEOUT_MS;
  for (;;) {
    const analytics = await client.analytics.get();
    const counted = analytics.currencies.reduce((sum, currency) => sum + currency.totals.entryCount, 0);
    if (counted >= entries) return (performance.now() - started) / 1000;
    if (Date.now() > deadline) throw new Error(`the read models did not catch up: analytics count ${counted} of ${entries} entries`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/**
 * The machine at rest again after the history: the ledger's events all handed to the broker, and
 * the calibration back within a third of what it was before the history (the consumers done with
 * the events), or two minutes passed.
 */
async function untilAtRest(ledgerDb: Db, quietCalibrationMs: number): Promise<void> {
  const deadline = Date.now() + CATCH_UP_TIMEOUT_MS;
  for (;;) {
    const [row] = (await ledgerDb('outbox').count<Array<{ count: string }>>('* as count')) as Array<{ count: string }>;
    if (Number(row?.count ?? 0) === 0) break;
    if (Date.now() > deadline) throw new Error(`the ledger's outbox still holds ${row?.count} events`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  const settleDeadline = Date.now() + 120_000;
  while (calibrationMs() > quietCalibrationMs * 1.3 && Date.now() < settleDeadline)
    await new Promise((resolve) => setTimeout(resolve, 1_000));
}

interface ExportTiming {
  firstByteMs: number;
  lastByteMs: number;
  rows: number;
  bytes: number;
  /** The gateway's resident memory before the export and the most seen while it ran (its /metrics, sampled every 100 ms). */
  rssBeforeMiB: number;
  rssPeakMiB: number;
}

async function gatewayRssMiB(adminUrl: string): Promise<number> {
  const text = await (await fetch(`${adminUrl}/metrics`)).text();
  const line = text.split('\n').find((each) => /^process_resident_memory_bytes[{ ]/.test(each));
  return Number(line?.split(' ').at(-1) ?? Number.NaN) / 2 ** 20;
}

/** The transfers export of the whole history as the signed-in viewer downloads it (the session's cookies), read as a stream. */
async function timeExport(dashboardUrl: string, adminUrl: string, cookie: string): Promise<ExportTiming> {
  const rssBeforeMiB = await gatewayRssMiB(adminUrl);
  let rssPeakMiB = rssBeforeMiB;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      rssPeakMiB = Math.max(rssPeakMiB, await gatewayRssMiB(adminUrl));
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  const started = performance.now();
  const response = await fetch(`${dashboardUrl}/v1/exports/transfers`, { headers: { cookie } });
  if (response.status !== 200 || !response.body) throw new Error(`the export answered ${response.status}: ${await response.text()}`);
  let firstByteMs = 0;
  let bytes = 0;
  let rows = 0;
  for await (const chunk of response.body) {
    if (bytes === 0) firstByteMs = performance.now() - started;
    bytes += chunk.byteLength;
    for (const byte of chunk) if (byte === 10) rows += 1;
  }
  const lastByteMs = performance.now() - started;
  sampling = false;
  await sampler;
  // The header is a line too.
  return { firstByteMs, lastByteMs, rows: rows - 1, bytes, rssBeforeMiB, rssPeakMiB };
}

const WORKBENCH_LINES = Number(process.env.BENCH_DASHBOARD_WORKBENCH_LINES ?? 10_000);
const WORKBENCH_SLIPS = 20;

/** Unmatched lines in one import, and pending slips of their amounts whose references the bank wrote otherwise: the rule (any reference) suggests. */
async function seedWorkbench(client: WalletClient, walletId: string): Promise<void> {
  const day = (offset: number) => new Date(Date.now() - offset * 86_400_000).toISOString().slice(0, 10);
  const lines = Array.from({ length: WORKBENCH_LINES }, (_, index) => ({
    date: day(index % 3),
    reference: `BANK TRF ${index}`,
    amount: `${(index % 500) + 1}.00`,
  }));
  await client.deposits.importStatement({ bankCode: 'stanbic', currencyCode: 'USD', lines });
  for (let index = 0; index < WORKBENCH_SLIPS; index += 1) {
    await client.deposits.submitBankSlip({
      walletId,
      amount: `${index + 1}.00`,
      currencyCode: 'USD',
      bankCode: 'stanbic',
      slipReference: `SLIP-${index}`,
    });
  }
  await client.reconciliation.matchRule.set({ reference: 'any', dateWindowDays: 3 });
}

/** The search box given a transfer's id, until its page shows: the search's lookup, and the page's read. */
function searchHit(transferId: string): Screen {
  return {
    name: 'global search, a transfer id to its page',
    path: `/search?q=${transferId}`,
    navigate: async (page) => {
      await page
        .getByRole('searchbox', { name: 'Search' })
        .or(page.getByRole('textbox', { name: 'Search' }))
        .first()
        .fill(transferId);
      await page.keyboard.press('Enter');
    },
    ready: (page) => page.getByRole('heading', { level: 1, name: `Transfer ${transferId}` }).waitFor(),
    apiPath: `/v1/transfers/${transferId}`,
  };
}

async function main(): Promise<void> {
  const system = await startSystem({
    serverUrl,
    amqpServerUrl,
    runId,
    systemKey: SYSTEM_KEY,
    logLevel: process.env.BENCH_LOG_LEVEL ?? 'warn',
  });
  const ledgerDb = createDb(system.databaseUrl('ledger'), { poolMax: 2, applicationName: 'bench-dashboard' });
  const paymentsDb = createDb(system.databaseUrl('payments'), { poolMax: 2, applicationName: 'bench-dashboard' });
  const browser = await launchChromium();
  try {
    const quietCalibrationMs = calibrationMs();
    const platform = new WalletClient({ baseUrl: system.baseUrl, auth: { type: 'system', systemKey: SYSTEM_KEY } });
    // Live: the dashboard signs in to the live environment.
    const tenant = await createTenant(
      platform,
      system.baseUrl,
      { name: 'Dashboard bench', slug: runId, wallets: 2, funds: '1000000.00', fees: true, environment: 'live' },
      undefined,
    );
    await tenant.client.team.create({ name: 'Finance', email: VIEWER.email, password: VIEWER.password, orgRole: 'finance-viewer' });
    const history = await buildHistory(
      { ledgerDb, paymentsDb, batchSize: 2_000, currencyCode: 'USD', maxTransfers: ENTRIES - tenant.wallets.length },
      [{ tenantId: tenant.tenantId, environment: 'live', wallets: tenant.wallets, lines: Number.POSITIVE_INFINITY }],
    );
    const caughtUp = await waitForReadModels(tenant.client, ENTRIES);
    await untilAtRest(ledgerDb, quietCalibrationMs);
    await ledgerDb.raw('VACUUM (ANALYZE) journal_entries, journal_lines, accounts');
    const wallet = tenant.wallets[0];
    if (!wallet) throw new Error('the tenant has no wallet');
    const statementLines = history.linesByWallet.get(wallet.id) ?? 0;
    const transferId = (await tenant.client.transfers.list({ limit: 1 })).data[0]?.id;
    if (!transferId) throw new Error('the history holds no transfer');
    await seedWorkbench(tenant.client, wallet.id);

    const dashboardUrl = `http://127.0.0.1:${system.env.DASHBOARD_PORT}`;
    const screens: Screen[] = [
      {
        name: 'journal explorer, first page (50 entries)',
        path: '/journal',
        navigate: (page) => page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Journal' }).click(),
        ready: tableRows('Journal entries, newest first', 50),
        apiPath: '/v1/journal',
      },
      {
        name: "wallet page, its statement's first page (25 lines)",
        path: `/wallets/${wallet.id}`,
        navigate: (page) => page.getByRole('link', { name: wallet.id }).click(),
        ready: tableRows('Statement, newest first', 25),
        apiPath: `/v1/wallets/${wallet.id}/entries`,
      },
      searchHit(transferId),
      {
        name: `reconciliation workbench, ${WORKBENCH_LINES.toLocaleString('en-US')} unmatched lines and ${WORKBENCH_SLIPS} pending slips`,
        path: '/reconciliation/workbench',
        // No link of the navigation leads there: the address, from the wallets list, as a bookmark would.
        navigate: (page) => page.goto(`${dashboardUrl}/reconciliation/workbench`).then(() => undefined),
        ready: async (page) => {
          await tableRows('Statement lines no slip accounts for, newest first', 25)(page);
          await page.getByRole('region', { name: 'Suggested by the rule' }).getByRole('row').nth(WORKBENCH_SLIPS).waitFor();
        },
        apiPath: '/v1/bank-statements/lines',
      },
    ];

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    await signInAt(page, dashboardUrl, VIEWER);
    const results = new Map(screens.map((screen) => [screen.name, { navigation: [] as Timing[], load: [] as Timing[] }]));
    const calibration: number[] = [quietCalibrationMs, calibrationMs()];
    // One round first, not counted: the browser's and PostgreSQL's caches as a person's second visit finds them.
    for (let round = 0; round <= ROUNDS; round += 1) {
      for (const screen of screens) {
        await walletsList(page, dashboardUrl);
        const navigation = await timed(page, screen, () => screen.navigate(page));
        const load = await timed(page, screen, () => page.goto(`${dashboardUrl}${screen.path}`));
        if (round === 0) continue;
        results.get(screen.name)?.navigation.push(navigation);
        results.get(screen.name)?.load.push(load);
      }
    }
    calibration.push(calibrationMs());
    const cookie = (await context.cookies(dashboardUrl)).map((each) => `${each.name}=${each.value}`).join('; ');
    const adminUrl = `http://127.0.0.1:${system.env.ADMIN_PORT}`;
    const exports: ExportTiming[] = [];
    for (let round = 0; round < EXPORT_ROUNDS; round += 1) exports.push(await timeExport(dashboardUrl, adminUrl, cookie));

    const initial = dashboardInitialJavaScript();
    const journalEntries = await ledgerDb('journal_entries')
      .where({ tenant_id: tenant.tenantId, environment: 'live' })
      .count<Array<{ count: string }>>('* as count');
    console.log('Dashboard benchmark: the first page of the books with a long history, in Chromium');
    console.log(
      `  machine: ${os.cpus()[0]?.model ?? 'unknown cpu'}, ${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}, load average ${os
        .loadavg()
        .map((load) => load.toFixed(1))
        .join(' ')}`,
    );
    const [quiet, before, after] = calibration.map((ms) => `${ms.toFixed(0)} ms`);
    console.log(
      `  calibration (64 MiB SHA-256, lower is faster): ${quiet} on the empty system, ${before} before the rounds, ${after} after them`,
    );
    console.log(
      '  the five services (scripts/start.ts), PostgreSQL, RabbitMQ, headless Chromium (Debian) and this process on the same machine; viewport 1280x900',
    );
    console.log(
      `  the tenant: ${Number(journalEntries[0]?.count ?? 0).toLocaleString('en-US')} journal entries (${history.lines.toLocaleString('en-US')} lines, built in ${history.seconds.toFixed(0)} s, read models ${caughtUp.toFixed(0)} s later); the wallet's statement ${statementLines.toLocaleString('en-US')} lines`,
    );
    console.log(
      `  initial JavaScript: ${(initial.reduce((sum, chunk) => sum + chunk.gzipBytes, 0) / 1024).toFixed(1)} KB gzipped in ${initial.length} chunks`,
    );
    console.log(
      `  ${ROUNDS} rounds after one uncounted, each screen from a click on the wallets list and from a fresh load of its address:`,
    );
    for (const [name, runs] of results) {
      console.log(`  ${name}`);
      console.log(`    after a click in the app  ${summary(runs.navigation)}`);
      console.log(`    after a fresh page load   ${summary(runs.load)}`);
    }
    for (const [round, run] of exports.entries())
      console.log(
        `  transfers export (CSV, every transfer), run ${round + 1}: ${run.rows.toLocaleString('en-US')} rows, ${(run.bytes / 2 ** 20).toFixed(1)} MiB; first byte ${run.firstByteMs.toFixed(0)} ms, last byte ${(run.lastByteMs / 1000).toFixed(1)} s; gateway resident memory ${run.rssBeforeMiB.toFixed(0)} MiB before, at most ${run.rssPeakMiB.toFixed(0)} MiB during it`,
      );
    await context.close();
  } finally {
    await browser.close();
    await ledgerDb.destroy();
    await paymentsDb.destroy();
    await system.stop();
    await dropSystem(serverUrl, amqpServerUrl, runId);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
