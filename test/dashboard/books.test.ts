import { CHECK_TITLES } from '../../apps/dashboard/src/books/reconciliation';
import { ACCOUNTS, type JournalEntry, ledgerRoutes, PAGE_LIMIT_MAX, reconciliationRoutes } from '@wallet/contracts';
import { createDb } from '@wallet/kit';
import { paginateItems } from '@wallet/sdk';
import type { Locator, Page } from 'playwright-core';
import { linesOfAccount } from '../../apps/dashboard/src/books/journal';
import { formatMoney } from '../../apps/dashboard/src/format/money';
import {
  accessibilityViolations,
  CURRENCY,
  type DashboardSystem,
  screenshot,
  settled,
  signIn,
  dashboardSuite,
  SYSTEM_ENV,
} from './support';

/**
 * The books in a real Chromium against the real system (test/dashboard/support.ts): the journal
 * explorer with its entry and account pages, reconciliation, fees, and a journal far longer than
 * one answer of the API examines. The long-journal scenario runs last: it adds those entries.
 *
 * A journal answer examines at most LEDGER_JOURNAL_EXAMINE_MAX entries; the browser suites'
 * system's is a tenth of the default (SYSTEM_ENV), so a tenth of the entries take the screens
 * through the same pages and requests as 100,000 entries with the default would. How fast the first page shows with 100,000 entries is
 * the dashboard benchmark's question (`npm run bench:dashboard`), not a test's.
 */

const EXAMINE_MAX = Number(SYSTEM_ENV.LEDGER_JOURNAL_EXAMINE_MAX);
const suite = dashboardSuite('books_browser', { height: 900, locale: 'en-US' });
let system: DashboardSystem;
beforeAll(() => {
  system = suite.system;
});
const newPage = (): Promise<Page> => suite.newPage();

/** Reads until `read` gives `expected` (compared as JSON), failing with the last value after the deadline. */
async function eventually<Value>(read: () => Promise<Value>, expected: Value, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = await read();
  while (JSON.stringify(last) !== JSON.stringify(expected)) {
    if (Date.now() > deadline) expect(last).toEqual(expected);
    await new Promise((resolve) => setTimeout(resolve, 100));
    last = await read();
  }
}

const money = (amount: string, currencyCode = CURRENCY) => formatMoney(amount, currencyCode, { locale: 'en-US' });

/** The path and query of every GET the page sends to an API path starting with `prefix`. */
function apiRequests(page: Page, prefix: string): string[] {
  const seen: string[] = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (request.method() === 'GET' && url.pathname.startsWith(prefix)) seen.push(`${url.pathname}${url.search}`);
  });
  return seen;
}

function table(page: Page, caption: string | RegExp): Locator {
  return page.getByRole('table', { name: caption });
}

async function openScreen(page: Page, label: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: label }).click();
  await settled(page, label);
}

/** Checks the screen with axe and keeps a screenshot; the violations are gathered so one failure lists them all. */
async function review(page: Page, name: string, violations: string[]): Promise<void> {
  violations.push(...(await accessibilityViolations(page, name)));
  await screenshot(page, `books-${name}`);
}

const JOURNAL = 'Journal entries, newest first';

describe('the journal explorer', () => {
  it('a finance-viewer pages and filters the journal, opens an entry and its accounts, each as the API has them', async () => {
    const page = await newPage();
    const violations: string[] = [];
    await signIn(page, system, 'finance-viewer');
    const journalReads = apiRequests(page, ledgerRoutes.journal.path);

    await openScreen(page, 'Journal');
    const first = await system.api.journal.list({ limit: 50 });
    const second = await system.api.journal.list({ limit: 50, cursor: first.nextCursor ?? undefined });
    const entryIds = () => table(page, JOURNAL).locator('tbody tr td:nth-child(2)').allInnerTexts();
    expect(await entryIds()).toEqual(first.data.map((entry) => entry.id));
    expect(journalReads).toEqual(['/v1/journal?limit=50']);
    await review(page, 'journal', violations);

    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByText('Page 2').waitFor();
    await eventually(
      entryIds,
      second.data.map((entry) => entry.id),
    );
    expect(journalReads).toHaveLength(2);
    expect(new URLSearchParams(journalReads[1]?.split('?')[1]).get('cursor')).toBe(first.nextCursor);

    // Kind: the three deposits that funded the wallets.
    await page.getByRole('combobox', { name: 'Kind' }).click();
    await page.getByRole('option', { name: 'momo_deposit', exact: true }).click();
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL((url) => url.searchParams.get('kind') === 'momo_deposit');
    const deposits = await system.api.journal.list({ kind: 'momo_deposit' });
    expect(deposits.data).toHaveLength(3);
    await eventually(
      entryIds,
      deposits.data.map((entry) => entry.id),
    );

    // Account, then a date range after everything: the filters combine as the API's query.
    const busyAccount = ACCOUNTS.wallet.nameFor(system.wallets.busy.ownerId);
    await page.getByRole('combobox', { name: 'Kind' }).click();
    await page.getByRole('option', { name: 'Any', exact: true }).click();
    await page.getByLabel('Account name').fill(busyAccount);
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL((url) => url.searchParams.get('accountName') === busyAccount && !url.searchParams.has('kind'));
    const ofAccount = await system.api.journal.list({ accountName: busyAccount, limit: 50 });
    await eventually(
      entryIds,
      ofAccount.data.map((entry) => entry.id),
    );
    await review(page, 'journal-filtered', violations);

    await page.getByLabel('From').fill('2099-01-01T00:00');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByText('No entry matches these filters.').waitFor();
    expect(new URL(page.url()).searchParams.get('from')).toMatch(/^2098-12-31T21:00:00\.000Z$/);

    // A bad filter is refused by the query schema before any request.
    const before = journalReads.length;
    await page.getByLabel('Account name').fill('no such account');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByText('is not a ledger account name').waitFor();
    expect(journalReads).toHaveLength(before);

    // An entry: a transfer with its fee, debits and credits as the API has them.
    await page.getByRole('button', { name: 'Clear' }).click();
    await settled(page, 'Journal');
    const transfer = (await system.api.journal.list({ kind: 'transfer', accountName: busyAccount, limit: 1 })).data[0] as JournalEntry;
    await page.goto(`${system.dashboardUrl}/journal?kind=transfer`);
    await settled(page, 'Journal');
    await table(page, JOURNAL).getByRole('link', { name: transfer.id }).first().click();
    await settled(page, `Journal entry ${transfer.id}`);
    const lines = table(page, `Lines of entry ${transfer.id}`);
    const rows = await lines.locator('tbody tr').allInnerTexts();
    expect(rows).toHaveLength(transfer.lines.length);
    transfer.lines.forEach((line, index) => {
      expect(rows[index]).toContain(line.accountName);
      expect(rows[index]).toContain(money(line.amount, line.currencyCode));
    });
    expect(await lines.locator('tfoot').innerText()).toMatch(/\bbalanced\b/i);
    await review(page, 'journal-entry', violations);

    // Its wallet account: the balance and the ledger's statement with running balances.
    const walletLine = transfer.lines.find((line) => line.walletId === system.wallets.busy.id);
    expect(walletLine).toBeDefined();
    await lines.getByRole('link', { name: busyAccount }).first().click();
    await settled(page, `Account ${busyAccount}`);
    const wallet = await system.api.wallets.get(system.wallets.busy.id);
    expect(await table(page, 'Balances').innerText()).toContain(money(wallet.balance));
    const statement = await system.api.ledger.walletEntries(wallet.id, { limit: 50 });
    const statementRows = table(page, 'Lines of this wallet account with the balance after each, newest first').locator('tbody tr');
    expect(await statementRows.count()).toBe(50);
    expect(await statementRows.first().innerText()).toContain(money((statement.data[0] as { balanceAfter: string }).balanceAfter));
    await review(page, 'account-wallet', violations);

    // A non-wallet account of the same entry: fee revenue, its lines through the journal's account filter.
    const feeLine = transfer.lines.find((line) => line.accountName === ACCOUNTS.feeRevenue.name);
    expect(feeLine).toBeDefined();
    await page.goBack();
    await settled(page, `Journal entry ${transfer.id}`);
    await lines.getByRole('link', { name: ACCOUNTS.feeRevenue.name }).first().click();
    await settled(page, `Account ${ACCOUNTS.feeRevenue.name}`);
    const feeAccounts = await system.api.ledger.accounts({ name: ACCOUNTS.feeRevenue.name, limit: PAGE_LIMIT_MAX });
    expect(feeAccounts.data).toHaveLength(1);
    expect(await table(page, 'Balances').innerText()).toContain(money(feeAccounts.data[0]?.balance ?? ''));
    const feeEntries = await system.api.journal.list({ accountName: ACCOUNTS.feeRevenue.name, limit: 50 });
    const feeLines = linesOfAccount(feeEntries.data, ACCOUNTS.feeRevenue.name);
    const feeRows = await table(page, 'Lines of this account, newest first').locator('tbody tr').allInnerTexts();
    expect(feeRows).toHaveLength(feeLines.length);
    expect(feeRows[0]).toContain(feeLines[0]?.entryId);
    expect(feeRows[0]).toContain(money(feeLines[0]?.amount ?? ''));
    await review(page, 'account-fee-revenue', violations);

    await openScreen(page, 'Ledger accounts');
    const accounts = await system.api.ledger.accounts({ limit: 25 });
    expect(await table(page, 'Ledger accounts with their balances').locator('tbody tr').count()).toBe(accounts.data.length);
    await review(page, 'ledger-accounts', violations);
    expect(violations).toEqual([]);
  }, 300_000);
});

describe('reconciliation', () => {
  it('shows the checks passing and runs them again on demand', async () => {
    const page = await newPage();
    const violations: string[] = [];
    await signIn(page, system, 'finance-viewer');
    const checks = apiRequests(page, reconciliationRoutes.tenant.path);
    await openScreen(page, 'Reconciliation');
    await page.getByText('All checks pass').first().waitFor();
    for (const name of ['balances', 'entries_balance', 'business_records', 'bank_evidence']) {
      expect(await page.getByRole('region', { name: `Check: ${CHECK_TITLES[name]}` }).innerText()).toContain('no mismatches');
    }
    const checkedAt = () =>
      page
        .getByText(/^Checked/)
        .first()
        .locator('time')
        .getAttribute('datetime');
    const firstRun = await checkedAt();
    const runsBefore = checks.length;
    // Not the tenant admin: it may follow a full run but not start one.
    expect(await page.getByRole('button', { name: 'Start a full run' }).count()).toBe(0);
    await review(page, 'reconciliation', violations);

    await page.getByRole('button', { name: 'Run checks now' }).click();
    await eventually(async () => (await checkedAt()) !== firstRun, true);
    expect(checks.length).toBe(runsBefore + 1);
    expect(Date.parse((await checkedAt()) ?? '')).toBeGreaterThan(Date.parse(firstRun ?? ''));
    expect(violations).toEqual([]);
  });

  it("lets the tenant's admin start a full run and follows it to its result", async () => {
    const page = await newPage();
    const violations: string[] = [];
    await signIn(page, system, 'org-admin');
    await openScreen(page, 'Reconciliation');
    await page.getByRole('button', { name: 'Start a full run' }).click();
    await page.waitForURL((url) => url.searchParams.has('run'));
    const runId = new URL(page.url()).searchParams.get('run') as string;
    await page.getByText('succeeded', { exact: true }).waitFor({ timeout: 120_000 });
    await page.getByText('Finished', { exact: true }).waitFor();
    const run = await system.api.reconciliation.fullRuns.get(runId);
    expect(run).toMatchObject({ state: 'succeeded', status: 'ok' });
    // The run's own result, after the checks asked now: two "All checks pass".
    await eventually(() => page.getByText('All checks pass').count(), 2);
    await review(page, 'reconciliation-full-run', violations);
    expect(violations).toEqual([]);
  }, 150_000);
});

describe('fees', () => {
  it("shows the default schedule with its rules and quotes the API's fee", async () => {
    const page = await newPage();
    const violations: string[] = [];
    await signIn(page, system, 'finance-viewer');
    const quotes = apiRequests(page, '/v1/fees/quote');
    await openScreen(page, 'Fees');
    const schedules = table(page, 'Fee schedules, newest first');
    const standard = schedules.locator('tbody tr', { hasText: 'Standard' });
    expect(await standard.innerText()).toMatch(/Standard\s+published\s+Default\s+Platform\s+20 %/i);
    await review(page, 'fees', violations);

    // A quote: what the API answers, shown as money; an amount finer than the currency never reaches it.
    await page.getByLabel('Currency').fill('USD');
    await page.getByLabel('Amount').fill('10.005');
    await page.getByRole('button', { name: 'Quote' }).click();
    await page.getByText("has more decimals than the currency's minor unit").waitFor();
    expect(quotes).toEqual([]);

    await page.getByLabel('Amount').fill('123.45');
    await page.getByRole('button', { name: 'Quote' }).click();
    const shown = page.getByTestId('fee-quote');
    await shown.waitFor();
    const quote = await system.api.fees.quote({ transactionType: 'transfer', currencyCode: CURRENCY, amount: '123.45' });
    // 0.25 + 1 % of 123.45 = 1.4845, half-up to cents.
    expect(quote.fee).toBe('1.48');
    expect(await shown.innerText()).toContain(`Fee for a transfer of ${money('123.45')}: ${money(quote.fee)}`);
    expect(quotes).toEqual(['/v1/fees/quote?transactionType=transfer&currencyCode=USD&amount=123.45']);
    await review(page, 'fees-quote', violations);

    await standard.getByRole('link', { name: 'Standard' }).click();
    await settled(page, 'Fee schedule Standard');
    const rule = await table(page, /^Rules/)
      .locator('tbody tr')
      .innerText();
    expect(rule).toMatch(new RegExp(`transfer\\s+USD\\s+any\\s+any\\s+${money('0.25')}\\s+1 %\\s+none\\s+${money('5.00')}`));
    await review(page, 'fee-schedule', violations);
    expect(violations).toEqual([]);
  });
});

/** Ten answers' worth: a screen page (five requests) and the next one find none of an older kind. */
const SEEDED_ENTRIES = 10 * EXAMINE_MAX;

/**
 * Entries of the tenant written straight into the ledger's tables (through the API they would
 * take minutes): balanced pairs between two of its non-wallet accounts that cancel out, with the
 * running balances a posting writes.
 */
async function seedJournal(ledgerDatabaseUrl: string, tenantId: string): Promise<void> {
  const db = createDb(ledgerDatabaseUrl, { poolMax: 1 });
  try {
    const accounts = (await db('accounts')
      .where({ tenant_id: tenantId, environment: 'live', currency_code: CURRENCY })
      .whereNull('wallet_id')
      .orderBy('name')
      .limit(2)
      .select('num', 'normal_side', 'balance')) as Array<{ num: string; normal_side: string; balance: string }>;
    const [a, b] = accounts;
    if (!a || !b) throw new Error('the tenant has fewer than two non-wallet accounts');
    const after = (account: { normal_side: string }, direction: 'DR' | 'CR') => (account.normal_side === direction ? '+ 1' : '- 1');
    await db.transaction(async (tx) => {
      await tx.raw(
        `INSERT INTO journal_entries (id, tenant_id, environment, kind, reference_type, reference_id, command_key, created_at)
         SELECT 'je_seed' || lpad(g::text, 6, '0'), ?, 'live', 'adjustment', 'seed', 'seed_' || g, md5('journal-seed-' || ? || '-' || g)::uuid, now() - (? - g) * interval '1 millisecond'
           FROM generate_series(1, ?) g`,
        [tenantId, tenantId, SEEDED_ENTRIES, SEEDED_ENTRIES],
      );
      // Odd entries debit a and credit b, even ones the other way round: every second entry the balances are back.
      await tx.raw(
        `INSERT INTO journal_lines (entry_seq, line_no, account_num, direction, amount, balance_after)
         SELECT e.seq, l.line_no, l.account_num, l.direction, 1, l.balance_after
           FROM (SELECT seq, substr(reference_id, 6)::int % 2 = 1 AS odd FROM journal_entries WHERE tenant_id = ? AND environment = 'live' AND reference_type = 'seed') e
           CROSS JOIN LATERAL (VALUES
             (1, CASE WHEN e.odd THEN ?::bigint ELSE ?::bigint END, 'DR', CASE WHEN e.odd THEN ?::numeric ${after(a, 'DR')} ELSE ?::numeric END),
             (2, CASE WHEN e.odd THEN ?::bigint ELSE ?::bigint END, 'CR', CASE WHEN e.odd THEN ?::numeric ${after(b, 'CR')} ELSE ?::numeric END)
           ) AS l(line_no, account_num, direction, balance_after)`,
        [tenantId, a.num, b.num, a.balance, b.balance, b.num, a.num, b.balance, a.balance],
      );
    });
    await db.raw('ANALYZE journal_entries, journal_lines');
  } finally {
    await db.destroy();
  }
}

describe('a journal far longer than one answer examines', () => {
  it('renders its first page reading that page only, after a navigation and after a full load', async () => {
    await seedJournal(system.ledgerDatabaseUrl, system.tenantId);
    const newest = await system.api.journal.list({ limit: 50 });
    expect(newest.data[0]?.id).toBe(`je_seed${String(SEEDED_ENTRIES).padStart(6, '0')}`);

    const page = await newPage();
    await signIn(page, system, 'finance-viewer');
    const journalReads = apiRequests(page, ledgerRoutes.journal.path);
    const rows = table(page, JOURNAL).locator('tbody tr');
    const firstPageShown = async () => {
      await rows.nth(49).waitFor();
      expect(await rows.count()).toBe(50);
      expect(await rows.first().innerText()).toContain(newest.data[0]?.id);
    };

    // Three times each, from a fresh page load so nothing is cached in the app (the browser may keep the code):
    // from the navigation (the screen's code, one request, fifty rows) and a cold load of the address (the app and the session too).
    for (let round = 0; round < 3; round += 1) {
      await page.goto(system.dashboardUrl);
      await settled(page, 'Overview');
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Journal' }).click();
      await firstPageShown();
      await page.goto(`${system.dashboardUrl}/journal`);
      await firstPageShown();
    }
    expect(journalReads).toEqual(Array.from({ length: 6 }, () => '/v1/journal?limit=50'));
    await screenshot(page, 'books-journal-long');
  }, 120_000);

  it('searches on through a kind the newest entries lack: five requests a screen page, saying the search goes on', async () => {
    const transfers: string[] = [];
    for await (const entry of paginateItems(system.api.journal.list, { kind: 'transfer', limit: 50 })) transfers.push(entry.id);
    expect(transfers.length).toBeGreaterThan(0);
    const page = await newPage();
    await signIn(page, system, 'finance-viewer');
    const journalReads = apiRequests(page, ledgerRoutes.journal.path);
    const reads = () => Promise.resolve(journalReads.length);
    const searchedOn = page.getByText('No match among the records searched so far');
    const entryIds = () => table(page, JOURNAL).locator('tbody tr td:nth-child(2)').allInnerTexts();

    // Each request tests EXAMINE_MAX entries: a screen page asks five times, then shows it has found nothing yet.
    await page.goto(`${system.dashboardUrl}/journal?kind=transfer`);
    await searchedOn.waitFor();
    expect(journalReads).toHaveLength(5);
    expect(await entryIds()).toEqual([]);
    await page.getByRole('button', { name: 'Next' }).click();
    await eventually(reads, 10);
    await searchedOn.waitFor();
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByText('Page 3').waitFor();
    await eventually(entryIds, transfers.slice(0, 50));
    expect(await searchedOn.count()).toBe(0);
    await screenshot(page, 'books-journal-searched-on');
  }, 120_000);
});
