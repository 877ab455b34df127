/**
 * Scale benchmark: the same measurements on an empty system and on one holding a long history.
 * The whole system runs as the README starts it (scripts/start.ts); this process sets up tenants
 * through the API, measures, then writes the history in bulk through the services' own code
 * (scripts/lib/history-builder.ts: payments' drafting and posting command, the ledger's
 * processBatch, payments' completed rows; the running services build their read models from
 * the ledger's events) and measures again. Reconciliation must say ok after each phase, or the
 * run fails.
 *
 *   npm run bench:scale   BENCH_SCALE_LINES=10000000 (the big tenant's journal lines)
 *                         BENCH_SCALE_SMALL_TENANTS=50 BENCH_SCALE_SMALL_LINES=10000 (lines each)
 *                         BENCH_SCALE_WALLETS=1000 BENCH_SCALE_SMALL_WALLETS=10
 *                         BENCH_SCALE_BATCH=2000 (transfers per ledger transaction while building)
 *                         BENCH_SCALE_REQUEST_LOGS=3000000 (the gateway's request logs of the last 30 days)
 *                         BENCH_SCALE_NEW_ENTRIES=10000 (entries posted between two incremental reconciliations)
 *                         BENCH_SCALE_READS=20 (each read timed this many times)
 *                         BENCH_SCALE_ROUNDS=3 (the transfer load alternated between the two systems, rounds each; 0 for none)
 *                         BENCH_SCALE_REUSE=<run id> (only the full runs and the alternated load, on the databases a run kept with BENCH_SCALE_KEEP=1)
 *                         BENCH_SCALE_TIMELINE=1 (each open loop's latency by the second)
 *                         BENCH_CONCURRENCY=64 BENCH_TRANSFERS=6000 BENCH_RATE=700 BENCH_SECONDS=10 BENCH_FEES=1
 */
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { createDb, type Db, DEFAULT_AMQP_URL, DEFAULT_DATABASE_URL } from '@wallet/kit';
import { dropRunVhosts } from '@wallet/kit/testing';
import { WalletClient } from '@wallet/sdk';
import { Pool } from 'undici';
import { buildHistory, type HistoryFigures, type HistoryTenant } from './lib/history-builder';
import { buildRequestLogHistory } from './lib/request-log-history';
import {
  call,
  deepStatementCursor,
  formatTiming,
  fullRun,
  orMissing,
  reconciliationCell,
  reconcileNow,
  reconcileUntilCaughtUp,
  timeReads,
} from './lib/scale-measurements';
import { createTenant, inParallel, type ScaleTenant, tenantClient } from './lib/scale-setup';
import { describeWindowedRows, perTransfer, serverCounters, type ServerCounters, windowedRows } from './lib/server-counters';
import { checkpoint, databaseSize, vacuumAnalyze } from './lib/storage-report';
import { calibrationMs, dropSystem, percentile, pooledFetch, type RunningSystem, SERVICES, startSystem } from './lib/system';
import { closedLoop, type Figures, type LoadTarget, openLoop, settle } from './lib/transfer-load';
import { CHECK3_LIMIT_PER_SCOPE } from '@wallet/money-commands';

const LINES = Number(process.env.BENCH_SCALE_LINES ?? 10_000_000);
const SMALL_TENANTS = Number(process.env.BENCH_SCALE_SMALL_TENANTS ?? 50);
const SMALL_LINES = Number(process.env.BENCH_SCALE_SMALL_LINES ?? 10_000);
const WALLETS = Number(process.env.BENCH_SCALE_WALLETS ?? 1_000);
const SMALL_WALLETS = Number(process.env.BENCH_SCALE_SMALL_WALLETS ?? 10);
const BATCH = Number(process.env.BENCH_SCALE_BATCH ?? 2_000);
const REQUEST_LOGS = Number(process.env.BENCH_SCALE_REQUEST_LOGS ?? 3_000_000);
/** The request logs' span: inside the default retention of 30 days, so none is purged while measuring. */
const REQUEST_LOG_DAYS = 29;
const NEW_ENTRIES = Number(process.env.BENCH_SCALE_NEW_ENTRIES ?? 10_000);
const READS = Number(process.env.BENCH_SCALE_READS ?? 20);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 64);
const TRANSFERS = Number(process.env.BENCH_TRANSFERS ?? 6_000);
const RATE = Number(process.env.BENCH_RATE ?? 700);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const FEES = process.env.BENCH_FEES === '1';
const ROUNDS = Number(process.env.BENCH_SCALE_ROUNDS ?? 3);
const REUSE = process.env.BENCH_SCALE_REUSE;
/** The open loops' latency by the second, to tell a stall from a queue. */
const TIMELINE = process.env.BENCH_SCALE_TIMELINE === '1';
/** Each wallet's deposit: enough that no transfer of the history or the load is refused. */
const FUNDS = '100000.00';
const CATCH_UP_TIMEOUT_MS = Number(process.env.BENCH_SCALE_CATCH_UP_MS ?? 30 * 60_000);

/**
 * A reconciliation slower than the gateway's 10 s deadline is timed, not cut (the gateway's
 * deadline at its maximum), and no scheduled all-tenant run starts in the middle of a
 * measurement. Either can be set otherwise in the environment.
 */
const SYSTEM_SETTINGS: NodeJS.ProcessEnv = {
  GATEWAY_UPSTREAM_TIMEOUT_MS: process.env.GATEWAY_UPSTREAM_TIMEOUT_MS ?? '120000',
  PAYMENTS_RECONCILIATION_INTERVAL_MS: process.env.PAYMENTS_RECONCILIATION_INTERVAL_MS ?? '0',
};

const serverUrl = process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL;
const amqpServerUrl = process.env.AMQP_URL ?? DEFAULT_AMQP_URL;
const runId = `bench${Date.now().toString(36)}`;
/** The second, empty system the transfer load alternates with. */
const emptyRunId = `${runId}e`;
const SYSTEM_KEY = `sys_bench_${randomUUID()}`;

function startRun(id: string): Promise<RunningSystem> {
  return startSystem({
    serverUrl,
    amqpServerUrl,
    runId: id,
    systemKey: SYSTEM_KEY,
    logLevel: process.env.BENCH_LOG_LEVEL ?? 'warn',
    extraEnv: SYSTEM_SETTINGS,
  });
}

/** The platform operator's client of a running system. */
function platformClient(system: RunningSystem): WalletClient {
  return new WalletClient({ baseUrl: system.baseUrl, auth: { type: 'system', systemKey: SYSTEM_KEY }, validateResponses: false });
}

function say(line: string): void {
  console.log(line);
}

/** The measurements of one phase, in the order they are printed. */
type Row = [name: string, value: string];

interface World {
  system: RunningSystem;
  platform: WalletClient;
  big: ScaleTenant;
  small: ScaleTenant[];
  ledgerDb: Db;
  paymentsDb: Db;
  /** Entries the ledger has posted for this run's tenants, as the benchmark counts them. */
  entries: number;
}

/** Posts `transfers` more transfers between the big tenant's wallets through the bulk path. */
async function addTransfers(world: World, transfers: number): Promise<HistoryFigures> {
  // At most six lines a transfer (with a fee and a commission): the count of transfers bounds it.
  const tenant: HistoryTenant = { tenantId: world.big.tenantId, environment: 'test', wallets: world.big.wallets, lines: transfers * 6 };
  const figures = await buildHistory(
    { ledgerDb: world.ledgerDb, paymentsDb: world.paymentsDb, batchSize: BATCH, currencyCode: 'USD', maxTransfers: transfers },
    [tenant],
  );
  world.entries += figures.transfers;
  return figures;
}

interface AnalyticsAnswer {
  currencies: Array<{ currencyCode: string; totals: { entryCount: number } }>;
}

/**
 * Waits until the read models have every entry the benchmark made: payments has no pending
 * transfer of the big tenant, and treasury's analytics count every entry of the run.
 */
async function waitUntilCaughtUp(world: World): Promise<number> {
  const started = performance.now();
  const deadline = Date.now() + CATCH_UP_TIMEOUT_MS;
  let counted = -1;
  for (;;) {
    const pending = (await call(world.big.client, 'GET', '/v1/transfers', { status: 'pending', limit: 1 })).data as { data: unknown[] };
    const analytics = (await call(world.platform, 'GET', '/v1/system/analytics', { environment: 'test' })).data as AnalyticsAnswer;
    counted = analytics.currencies.reduce((sum, currency) => sum + currency.totals.entryCount, 0);
    if (pending.data.length === 0 && counted >= world.entries) return (performance.now() - started) / 1000;
    if (Date.now() > deadline)
      throw new Error(
        `the read models did not catch up: analytics count ${counted} of ${world.entries} entries, pending transfers ${pending.data.length}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

const accepted = (figures: Figures): number => Math.round(figures.acceptedPerSecond * figures.seconds);

function loadTarget(system: RunningSystem, systemRunId: string, tenant: ScaleTenant): LoadTarget {
  return { client: tenant.client, wallets: tenant.wallets, hot: null, system: { runId: systemRunId, systemPid: system.process.pid } };
}

/** A closed loop of at most 1,000 transfers: connections, caches and the JIT ready before a measurement. */
function warmUp(target: LoadTarget): Promise<Figures> {
  return closedLoop('warm-up', target, { concurrency: CONCURRENCY, transfers: Math.min(TRANSFERS, 1_000) });
}

/** The longest a system may take to work off a load before the next measurement starts anyway. */
const SETTLE_MAX_MS = 20_000;

/**
 * The transfer path's measurement, random pairs of a tenant's wallets: the closed loop's rate and the open loop's tail, after a
 * warm-up; with what PostgreSQL did per transfer of the open loop, to tell where a longer tail comes from. The open loop
 * starts once the system has worked off the closed loop (its tail is then a steady rate's, not the closed loop's
 * aftermath); how long that took is returned.
 */
async function transferLoad(
  target: LoadTarget,
): Promise<{ closed: Figures; closedAftermathS: number; open: Figures; server: ServerCounters; accepted: number }> {
  const warm = await warmUp(target);
  const closed = await closedLoop('closed', target, { concurrency: CONCURRENCY, transfers: TRANSFERS });
  const closedAftermathS = await settle(target.system, SETTLE_MAX_MS);
  const before = await serverCounters(serverUrl, target.system.runId);
  const open = await openLoop('open', target, { rate: RATE, seconds: SECONDS, timeline: TIMELINE });
  const server = perTransfer(before, await serverCounters(serverUrl, target.system.runId), open.sent);
  return { closed, closedAftermathS, open, server, accepted: accepted(warm) + accepted(closed) + accepted(open) };
}

/** Completed transfers and every database's bytes per transfer, after a VACUUM of each. */
async function storageRows(world: World): Promise<Row[]> {
  const counted = await world.paymentsDb.raw<{ rows: Array<{ count: string }> }>(
    `SELECT count(*) AS count FROM transfers WHERE status = 'completed'`,
  );
  const transfers = Number(counted.rows[0]?.count ?? 0);
  const rows: Row[] = [['completed transfers (all tenants)', transfers.toLocaleString('en-US')]];
  let all = 0;
  for (const service of SERVICES) {
    const size = await databaseSize(world.system.databaseUrl(service), service);
    all += size.totalBytes;
    rows.push([`bytes per transfer: ${service}`, (size.totalBytes / Math.max(1, transfers)).toFixed(0)]);
  }
  rows.push(['bytes per transfer: all databases', (all / Math.max(1, transfers)).toFixed(0)]);
  return rows;
}

/**
 * One phase's measurements, the same requests whatever the history: the transfer load, the
 * reconciliations, the reads, the storage.
 */
async function measure(world: World, history: { middleAt: Date; statementDepth: number }): Promise<Row[]> {
  const rows: Row[] = [];
  const client = world.big.client;
  rows.push(['calibration (64 MiB SHA-256, lower is faster)', `${calibrationMs().toFixed(0)} ms`]);

  // The transfer path: the closed loop's rate and the open loop's tail, random pairs of the big tenant's wallets.
  const target = loadTarget(world.system, runId, world.big);
  const { closed, open, accepted: loadAccepted } = await transferLoad(target);
  world.entries += loadAccepted;
  rows.push([`closed loop, ${CONCURRENCY} in flight: completed transfers/s`, closed.completedPerSecond.toFixed(0)]);
  rows.push(['closed loop: p50 / p99 ms', `${closed.p50.toFixed(1)} / ${closed.p99.toFixed(1)}`]);
  rows.push([`open loop, ${RATE}/s offered: completed/s`, open.completedPerSecond.toFixed(0)]);
  rows.push([`open loop, ${RATE}/s: p50 / p99 ms`, `${open.p50.toFixed(1)} / ${open.p99.toFixed(1)}`]);
  rows.push(['transfers not answered 201 or 202', `${closed.refused} / ${open.refused}`]);
  rows.push(['waiting for the read models (s)', (await waitUntilCaughtUp(world)).toFixed(1)]);

  // Reconciliation asked now, with the load's entries new (it must say ok), then with NEW_ENTRIES more since.
  const tenantFirst = await reconcileNow(world.big.client, '/v1/admin/reconciliation');
  const systemFirst = await reconcileNow(world.platform, '/v1/system/reconciliation');
  rows.push(['tenant reconciliation (GET), after the load', reconciliationCell(tenantFirst)]);
  rows.push(['platform reconciliation (GET), after the load', reconciliationCell(systemFirst)]);
  // Each with entries of its own new: a tenant's check moves the checkpoints the platform's then starts from.
  await addTransfers(world, NEW_ENTRIES);
  await waitUntilCaughtUp(world);
  rows.push([
    `tenant reconciliation (GET), ${NEW_ENTRIES} entries new`,
    reconciliationCell(await reconcileNow(world.big.client, '/v1/admin/reconciliation')),
  ]);
  await addTransfers(world, NEW_ENTRIES);
  await waitUntilCaughtUp(world);
  rows.push([
    `platform reconciliation (GET), ${NEW_ENTRIES} entries new`,
    reconciliationCell(await reconcileNow(world.platform, '/v1/system/reconciliation')),
  ]);
  rows.push(['tenant full run (POST .../runs)', await orMissing(() => fullRun(world.big.client, '/v1/admin/reconciliation/runs'))]);
  rows.push(['platform full run (POST .../runs)', await orMissing(() => fullRun(world.platform, '/v1/system/reconciliation/runs'))]);
  // The same open loop while a platform full run reads the whole history: its throttle is what this tail shows. A full run
  // leaves PostgreSQL's cache full of the journal, so the transfer path is warmed up again first, as before the first loops.
  world.entries += accepted(await warmUp(target));
  const running = orMissing(() => fullRun(world.platform, '/v1/system/reconciliation/runs'));
  const during = await openLoop('open during a full run', target, { rate: RATE, seconds: SECONDS, timeline: false });
  world.entries += accepted(during);
  rows.push([
    `open loop, ${RATE}/s, during a platform full run: p50 / p99 ms`,
    `${during.p50.toFixed(1)} / ${during.p99.toFixed(1)} (the run: ${await running})`,
  ]);

  // Reads of the big tenant, each timed READS times.
  const wallet = world.big.wallets[1] ?? world.big.wallets[0];
  if (!wallet) throw new Error('the big tenant has no wallet');
  const deep = await deepStatementCursor(client, wallet.id, history.statementDepth);
  const timed = async (read: () => Promise<unknown>) => formatTiming(await timeReads(READS, read));
  rows.push([
    'statement, first page (limit 50)',
    await timed(() => call(client, 'GET', `/v1/wallets/${wallet.id}/entries`, { limit: 50 })),
  ]);
  const deepRead = await timed(() =>
    call(client, 'GET', `/v1/wallets/${wallet.id}/entries`, { limit: 50, ...(deep.cursor ? { cursor: deep.cursor } : {}) }),
  );
  rows.push(['statement, a page deep in history (limit 50)', `${deepRead}, ${deep.linesDown.toLocaleString('en-US')} lines down`]);
  const at = history.middleAt.toISOString();
  rows.push([
    'balance as of the middle of the history',
    await orMissing(() => timed(() => call(client, 'GET', `/v1/wallets/${wallet.id}/balance`, { at }))),
  ]);
  const windowFrom = new Date(history.middleAt.getTime() - 60_000).toISOString();
  rows.push(['journal, no filter (limit 50)', await timed(() => call(client, 'GET', '/v1/journal', { limit: 50 }))]);
  rows.push([
    'journal, kind=transfer & walletId',
    await timed(() => call(client, 'GET', '/v1/journal', { limit: 50, kind: 'transfer', walletId: wallet.id })),
  ]);
  rows.push([
    'journal, kind=momo_deposit (oldest entries only; a request tests 10,000)',
    await timed(() => call(client, 'GET', '/v1/journal', { limit: 50, kind: 'momo_deposit' })),
  ]);
  rows.push([
    'journal, a minute mid-history (from/to; a request tests 10,000)',
    await timed(() => call(client, 'GET', '/v1/journal', { limit: 50, from: windowFrom, to: at })),
  ]);
  let counted = 0;
  const tenantAnalytics = await timed(async () => (counted = await analyticsRead(client, '/v1/admin/analytics')));
  rows.push([
    'analytics, tenant (last 30 days, request errors included)',
    `${tenantAnalytics}, ${counted.toLocaleString('en-US')} requests`,
  ]);
  const platformAnalytics = await timed(
    async () => (counted = await analyticsRead(world.platform, '/v1/system/analytics', { environment: 'test' })),
  );
  rows.push([
    'analytics, platform (last 30 days, request errors included)',
    `${platformAnalytics}, ${counted.toLocaleString('en-US')} requests`,
  ]);

  rows.push(...(await storageRows(world)));
  return rows;
}

/** An analytics read and the requests it counted; a section the gateway did not answer would time nothing worth timing. */
async function analyticsRead(client: WalletClient, path: string, query?: Record<string, string>): Promise<number> {
  const answer = await call(client, 'GET', path, query);
  const requestErrors = (answer.data as { requestErrors?: { available: boolean; totalRequests?: number } }).requestErrors;
  if (!requestErrors?.available) throw new Error(`${path} answered without the gateway's request errors: ${JSON.stringify(requestErrors)}`);
  return requestErrors.totalRequests ?? 0;
}

/** The middle of the rounds, the mean of the two middle ones for an even count (percentile() takes the upper). */
const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] ?? Number.NaN) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
};
const change = (from: number, to: number): string => `${to >= from ? '+' : ''}${(((to - from) / from) * 100).toFixed(0)} %`;

/** One system's part of a round: the closed loop, the open loop at RATE, and an open loop at half the empty system's closed-loop rate. */
interface RoundSide {
  closed: Figures;
  closedAftermathS: number;
  open: Figures;
  server: ServerCounters;
  half: Figures;
}

/** The empty system's measurement and the one at scale, taken in the order asked for, returned in that order whatever it was. */
async function inOrder<T>(scaleFirst: boolean, onEmpty: () => Promise<T>, atScale: () => Promise<T>): Promise<[T, T]> {
  if (!scaleFirst) {
    const empty = await onEmpty();
    return [empty, await atScale()];
  }
  const scale = await atScale();
  return [await onEmpty(), scale];
}

/**
 * A measurement of one system while the other is paused. The two share this VM's two cores, so whatever the idle one did
 * (its last load's aftermath, its maintenance and retention passes, larger with the history) would land in the measured
 * one's tail. The idle one first works off its last load; the seconds that took are returned, as that system's aftermath.
 * The measured one then works off its own resume: paused until just now, it fires at once every timer that fell due
 * meanwhile (maintenance, retention, the outbox's polls), and a measurement without a warm-up would take that as its tail.
 */
async function alone<T>(
  idle: { system: RunningSystem; target: LoadTarget },
  measured: LoadTarget,
  measure: (target: LoadTarget) => Promise<T>,
): Promise<{ value: T; idleAftermathS: number }> {
  const idleAftermathS = await settle(idle.target.system, SETTLE_MAX_MS);
  idle.system.pause();
  await settle(measured.system, SETTLE_MAX_MS);
  try {
    return { value: await measure(measured), idleAftermathS };
  } finally {
    idle.system.resume();
  }
}

/** The loaded system's own parts: its services, its databases' backends and the broker; not the load generator, not the other system's backends. */
const isSystemPart = (part: string): boolean => part !== 'load generator' && part !== 'pg:other';

/** CPU per transfer of the loaded system's parts. */
const systemCpuMs = (figures: Figures): number =>
  figures.cpu.filter((share) => isSystemPart(share.process)).reduce((sum, share) => sum + share.msPerTransfer, 0);

/**
 * One side's costs in a round: CPU in the closed and the open loop (a transfer arriving alone shares fewer batches), how busy
 * the cores were in the open loop (near 100 %, its tail is a queue's), and what PostgreSQL did per transfer of the open loop.
 */
const costs = (side: RoundSide): string =>
  `CPU ${systemCpuMs(side.closed).toFixed(2)} ms closed, ${systemCpuMs(side.open).toFixed(2)} ms open, cores ${(side.open.machine.busy * 100).toFixed(0)} % busy in the open loop, ` +
  `WAL ${(side.server.walBytes / 1024).toFixed(1)} KB, ` +
  `${side.server.blocksHit.toFixed(0)} pages hit, ${side.server.blocksRead.toFixed(2)} read, ${side.server.backendWrites.toFixed(2)} written by a backend, ` +
  `${side.server.checkpoints} checkpoints; the closed loop's aftermath ${side.closedAftermathS.toFixed(1)} s`;

/**
 * The transfer load alternated between a second, empty system and the one with the history, a round on each in turn (the
 * empty one first in odd rounds, the other in even ones), the other system paused meanwhile: the VM's speed drifts by a
 * third between hours, and the two phases above are the build's half hour apart. The medians of the
 * rounds compare the two systems over the same minutes. Each round also offers both systems half of what the empty one
 * completed in its closed loop: where the VM cannot offer RATE with room to spare, the tail at RATE is a queue's, and the
 * tail at half the capacity is still a posting's.
 */
async function alternateLoad(scaleSystem: RunningSystem, scaleRunId: string, big: ScaleTenant): Promise<number> {
  const system = await startRun(emptyRunId);
  const pool = new Pool(system.baseUrl, { connections: Math.max(CONCURRENCY, 256), pipelining: 1 });
  let acceptedAtScale = 0;
  try {
    const platform = platformClient(system);
    const tenant = await createTenant(
      platform,
      system.baseUrl,
      { name: 'Empty', slug: `empty-${runId}`, wallets: big.wallets.length, funds: FUNDS, fees: FEES },
      pooledFetch(pool),
    );
    const sides = {
      empty: { system, target: loadTarget(system, emptyRunId, tenant) },
      scale: { system: scaleSystem, target: loadTarget(scaleSystem, scaleRunId, big) },
    };
    const aftermath = { empty: 0, scale: 0 };
    /** `measure` on one system, the other paused; the other's aftermath recorded. */
    const on =
      <T>(side: 'empty' | 'scale', measure: (target: LoadTarget) => Promise<T>) =>
      async (): Promise<T> => {
        const other = side === 'empty' ? 'scale' : 'empty';
        const { value, idleAftermathS } = await alone(sides[other], sides[side].target, measure);
        aftermath[other] = Math.max(aftermath[other], idleAftermathS);
        return value;
      };
    const rounds: Array<{ empty: RoundSide; scale: RoundSide }> = [];
    say('');
    say(
      `  the transfer load alternated: a fresh empty system (${big.wallets.length} wallets, no history) and the one with the history, ${ROUNDS} rounds, each measured while the other is paused`,
    );
    // The history holds none (older than every window); the system with it holds what this run's (and a kept run's) load left.
    say(
      `    in windowed tables at the start: empty system ${describeWindowedRows(await windowedRows(system.databaseUrl))}; with history ${describeWindowedRows(await windowedRows(scaleSystem.databaseUrl))}`,
    );
    say(
      `    round  calibration  closed/s: empty  at scale  ${`p99 ms at ${RATE}/s: empty`.padStart(22)}  at scale  half rate  p99 ms: empty  at scale`,
    );
    for (let round = 1; round <= ROUNDS; round += 1) {
      const calibration = calibrationMs();
      // Which system goes first alternates too, so that neither always meets the VM's drift within a round first.
      const scaleFirst = round % 2 === 0;
      aftermath.empty = 0;
      aftermath.scale = 0;
      const [empty, scale] = await inOrder(scaleFirst, on('empty', transferLoad), on('scale', transferLoad));
      const half = { rate: Math.round(empty.closed.completedPerSecond / 2), seconds: SECONDS, timeline: false };
      const halfLoad = (target: LoadTarget): Promise<Figures> => openLoop('open, half rate', target, half);
      const [emptyHalf, scaleHalf] = await inOrder(scaleFirst, on('empty', halfLoad), on('scale', halfLoad));
      acceptedAtScale += scale.accepted + accepted(scaleHalf);
      const measured = { empty: { ...empty, half: emptyHalf }, scale: { ...scale, half: scaleHalf } };
      rounds.push(measured);
      const cell = (value: number, digits: number, width: number): string => value.toFixed(digits).padStart(width);
      say(
        `    ${String(round).padStart(5)}  ${`${calibration.toFixed(0)} ms`.padStart(11)}  ${cell(empty.closed.completedPerSecond, 0, 15)}  ${cell(scale.closed.completedPerSecond, 0, 8)}  ` +
          `${cell(empty.open.p99, 1, 22)}  ${cell(scale.open.p99, 1, 8)}  ${cell(half.rate, 0, 9)}  ${cell(emptyHalf.p99, 1, 13)}  ${cell(scaleHalf.p99, 1, 8)}${scaleFirst ? '  (history first)' : ''}`,
      );
      say(
        `           per transfer, empty system: ${costs(measured.empty)}; its loads worked off in ${aftermath.empty.toFixed(1)} s at most`,
      );
      say(
        `           per transfer, with history: ${costs(measured.scale)}; its loads worked off in ${aftermath.scale.toFixed(1)} s at most`,
      );
    }
    const compared = (label: string, figure: (each: RoundSide) => number, digits: number, unit: string): string => {
      const [empty, scale] = (['empty', 'scale'] as const).map((side) => median(rounds.map((round) => figure(round[side])))) as [
        number,
        number,
      ];
      return `${label} ${empty.toFixed(digits)} / ${scale.toFixed(digits)}${unit} (${change(empty, scale)})`;
    };
    say(
      `    median, empty / at scale: ${[
        compared('closed loop', (each) => each.closed.completedPerSecond, 0, ' transfers/s'),
        compared(`p99 at ${RATE}/s`, (each) => each.open.p99, 1, ' ms'),
        compared('p99 at half the empty closed loop', (each) => each.half.p99, 1, ' ms'),
        compared('CPU per transfer', (each) => systemCpuMs(each.closed), 2, ' ms'),
        compared(`CPU per transfer at ${RATE}/s`, (each) => systemCpuMs(each.open), 2, ' ms'),
        compared(`busy cores at ${RATE}/s`, (each) => each.open.machine.busy * 100, 0, ' %'),
        compared("the closed loop's aftermath", (each) => each.closedAftermathS, 1, ' s'),
        compared('WAL per transfer', (each) => each.server.walBytes / 1024, 1, ' KB'),
      ].join(', ')}`,
    );
    // A round's p99 at a rate near the VM's capacity is set by whether one of its few seconds stalled; over every round's
    // transfers together, the rare stalls weigh by how often they come.
    const pooled = (label: string, loop: (each: RoundSide) => Figures): string => {
      const [empty, scale] = (['empty', 'scale'] as const).map((side) =>
        percentile(
          rounds.flatMap((round) => loop(round[side]).latencies).sort((a, b) => a - b),
          0.99,
        ),
      ) as [number, number];
      return `${label} ${empty.toFixed(1)} / ${scale.toFixed(1)} ms (${change(empty, scale)})`;
    };
    say(
      `    p99 over every round's transfers, empty / at scale: ${pooled(`at ${RATE}/s`, (each) => each.open)}, ${pooled('at half the empty closed loop', (each) => each.half)}`,
    );
    const parts = [...new Set(rounds.flatMap((round) => round.empty.closed.cpu.map((share) => share.process)))].filter(isSystemPart);
    const partMs = (figures: Figures, part: string): number => figures.cpu.find((share) => share.process === part)?.msPerTransfer ?? 0;
    say(
      `    median CPU per transfer of each part in the closed loop, ms, empty / at scale: ${parts.map((part) => compared(part, (each) => partMs(each.closed, part), 2, '')).join(', ')}`,
    );
  } finally {
    await pool.close();
    await system.stop();
    await dropSystem(serverUrl, amqpServerUrl, emptyRunId);
  }
  return acceptedAtScale;
}

function printSideBySide(empty: Row[], scale: Row[]): void {
  const width = Math.max(...scale.map(([name]) => name.length));
  const valueWidth = Math.max(18, ...empty.map(([, value]) => value.length));
  say('');
  say(`  ${'measurement'.padEnd(width)}  ${'empty system'.padEnd(valueWidth)}  at scale`);
  for (const [index, [name, value]] of scale.entries())
    say(`  ${name.padEnd(width)}  ${(empty[index]?.[1] ?? '').padEnd(valueWidth)}  ${value}`);
}

async function setUp(system: RunningSystem, pool: Pool): Promise<World> {
  const platform = platformClient(system);
  const big = await createTenant(
    platform,
    system.baseUrl,
    { name: 'Big', slug: `big-${runId}`, wallets: WALLETS, funds: FUNDS, fees: FEES },
    pooledFetch(pool),
  );
  const small = await inParallel(
    Array.from({ length: SMALL_TENANTS }, (_, index) => index),
    4,
    (index) =>
      createTenant(
        platform,
        system.baseUrl,
        { name: `Small ${index}`, slug: `small-${index}-${runId}`, wallets: SMALL_WALLETS, funds: FUNDS, fees: FEES },
        undefined,
      ),
  );
  const ledgerDb = createDb(system.databaseUrl('ledger'), { poolMax: 2, applicationName: 'bench-scale' });
  const paymentsDb = createDb(system.databaseUrl('payments'), { poolMax: 2, applicationName: 'bench-scale' });
  const entries = big.wallets.length + small.reduce((sum, tenant) => sum + tenant.wallets.length, 0);
  return { system, platform, big, small, ledgerDb, paymentsDb, entries };
}

/** A month of request logs, the big tenant's nine in ten, the rest spread over the small tenants. */
async function writeRequestLogs(world: World): Promise<string> {
  const gatewayDb = createDb(world.system.databaseUrl('gateway'), { poolMax: 1, applicationName: 'bench-scale' });
  try {
    const small = world.small.map((tenant) => ({
      tenantId: tenant.tenantId,
      environment: 'test' as const,
      share: 0.1 / Math.max(1, world.small.length),
    }));
    const tenants = [{ tenantId: world.big.tenantId, environment: 'test' as const, share: 0.9 }, ...small];
    const figures = await buildRequestLogHistory({ gatewayDb, tenants, count: REQUEST_LOGS, days: REQUEST_LOG_DAYS });
    return `${figures.logs.toLocaleString('en-US')} over the last ${REQUEST_LOG_DAYS} days in ${figures.seconds.toFixed(1)} s`;
  } finally {
    await gatewayDb.destroy();
  }
}

/**
 * The databases a run kept started again, and only the alternated load measured on them: the biggest tenant of the test
 * environment, a new key of its own, its wallets as the kept payments database lists them.
 */
async function alternateOnKept(keptRunId: string): Promise<void> {
  const system = await startRun(keptRunId);
  const pool = new Pool(system.baseUrl, { connections: Math.max(CONCURRENCY, 256), pipelining: 1 });
  const paymentsDb = createDb(system.databaseUrl('payments'), { poolMax: 1, applicationName: 'bench-scale' });
  try {
    const counted = await paymentsDb.raw<{ rows: Array<{ tenant_id: string }> }>(
      `SELECT tenant_id FROM wallets WHERE environment = 'test' GROUP BY tenant_id ORDER BY count(*) DESC LIMIT 1`,
    );
    const tenantId = counted.rows[0]?.tenant_id;
    if (!tenantId) throw new Error(`the databases ${keptRunId}_* hold no wallet`);
    const listed = await paymentsDb.raw<{ rows: Array<{ id: string; owner_id: string; currency_code: string }> }>(
      `SELECT id, owner_id, currency_code FROM wallets WHERE tenant_id = ? AND environment = 'test' ORDER BY id`,
      [tenantId],
    );
    const wallets = listed.rows.map((row) => ({
      id: row.id,
      ownerId: row.owner_id,
      currencyCode: row.currency_code,
      status: 'active' as const,
    }));
    const platform = platformClient(system);
    const client = await tenantClient(platform, system.baseUrl, tenantId, 'test', pooledFetch(pool));
    say(
      `Scale benchmark on the databases ${keptRunId}_* (${wallets.length} wallets of the biggest tenant): the full runs, then the alternated load`,
    );
    say(`  calibration ${calibrationMs().toFixed(0)} ms`);
    say(`  tenant full run (POST .../runs): ${await orMissing(() => fullRun(client, '/v1/admin/reconciliation/runs'))}`);
    say(`  platform full run (POST .../runs): ${await orMissing(() => fullRun(platform, '/v1/system/reconciliation/runs'))}`);
    if (ROUNDS > 0) await alternateLoad(system, keptRunId, { tenantId, client, wallets });
  } finally {
    await paymentsDb.destroy();
    await pool.close();
    await system.stop();
    await dropRunVhosts(amqpServerUrl, keptRunId);
  }
}

async function main(): Promise<void> {
  if (REUSE) return alternateOnKept(REUSE);
  const system = await startRun(runId);
  const pool = new Pool(system.baseUrl, { connections: Math.max(CONCURRENCY, 256), pipelining: 1 });
  let world: World | null = null;
  try {
    const setUpStarted = new Date();
    world = await setUp(system, pool);
    say('Scale benchmark: the same measurements on an empty system and with a long history');
    say(
      `  machine: ${os.cpus()[0]?.model ?? 'unknown cpu'}, ${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}`,
    );
    say('  the five services as processes (scripts/start.ts), PostgreSQL, RabbitMQ and this process on the same machine');
    say(
      `  history: one tenant with ${LINES.toLocaleString('en-US')} journal lines over ${WALLETS} wallets, ${SMALL_TENANTS} tenants with ${SMALL_LINES.toLocaleString('en-US')} each over ${SMALL_WALLETS}`,
    );
    say(
      `  and ${REQUEST_LOGS.toLocaleString('en-US')} request logs of the last ${REQUEST_LOG_DAYS} days (the big tenant's 90 %), which the analytics' request errors count`,
    );
    say(
      `  ${FEES ? 'default fee schedule: 0.05 + 1 % (at most 5.00) per transfer, 20 % platform commission' : 'no fee schedule (BENCH_FEES=1 for one): two lines per transfer'}`,
    );
    say(
      `  load: closed loop ${TRANSFERS} transfers, ${CONCURRENCY} in flight; open loop ${RATE}/s for ${SECONDS} s; reads timed ${READS} times each (p50, max)`,
    );

    say('  measuring the empty system');
    const emptyMiddle = new Date((setUpStarted.getTime() + Date.now()) / 2);
    const empty = await measure(world, { middleAt: emptyMiddle, statementDepth: Number.POSITIVE_INFINITY });

    say(`  building the history (${BATCH} transfers per ledger transaction)`);
    const tenants: HistoryTenant[] = [
      { tenantId: world.big.tenantId, environment: 'test', wallets: world.big.wallets, lines: LINES },
      ...world.small.map((tenant) => ({
        tenantId: tenant.tenantId,
        environment: 'test' as const,
        wallets: tenant.wallets,
        lines: SMALL_LINES,
      })),
    ];
    const goal = LINES + SMALL_TENANTS * SMALL_LINES;
    let reported = 0;
    const onProgress = (lines: number): void => {
      if (lines - reported < goal / 10) return;
      reported = lines;
      say(`    ${lines.toLocaleString('en-US')} lines`);
    };
    const history = await buildHistory(
      { ledgerDb: world.ledgerDb, paymentsDb: world.paymentsDb, batchSize: BATCH, currencyCode: 'USD', onProgress },
      tenants,
    );
    world.entries += history.transfers;
    say(
      `  built ${history.lines.toLocaleString('en-US')} lines (${history.transfers.toLocaleString('en-US')} transfers) in ${history.seconds.toFixed(1)} s: ${Math.round(history.lines / history.seconds).toLocaleString('en-US')} lines/s`,
    );
    const { draftSeconds, postSeconds, recordWaitSeconds } = history.split;
    say(
      `    drafting and decoding ${draftSeconds.toFixed(1)} s, the ledger's processBatch ${postSeconds.toFixed(1)} s, waiting for payments' rows ${recordWaitSeconds.toFixed(1)} s; calibration now ${calibrationMs().toFixed(0)} ms`,
    );
    say(`  request logs: ${await writeRequestLogs(world)}`);
    const caughtUp = await waitUntilCaughtUp(world);
    say(
      `  read models caught up ${caughtUp.toFixed(1)} s later (${Math.round(history.lines / (history.seconds + caughtUp)).toLocaleString('en-US')} lines/s with them)`,
    );
    // A history that accrued over months would have been vacuumed by autovacuum as it grew (off on this machine): without the
    // visibility map every index-only read of the journal visits the heap, and without statistics the planner guesses.
    const vacuumStarted = performance.now();
    for (const service of SERVICES) await vacuumAnalyze(system.databaseUrl(service));
    say(`  VACUUM (ANALYZE) of every database, as autovacuum would have run: ${((performance.now() - vacuumStarted) / 1000).toFixed(1)} s`);
    // Gigabytes written in minutes leave a checkpoint writing them out for minutes more, over the measurements; a history that
    // accrued over months has none pending. After it, the measurements meet the server as any checkpoint cycle would.
    const checkpointStarted = performance.now();
    await checkpoint(serverUrl);
    say(`  CHECKPOINT after the build: ${((performance.now() - checkpointStarted) / 1000).toFixed(1)} s`);
    // A history written in bulk is what an import or an upgrade leaves: a platform full run first (docs/reconciliation.md), so the
    // ledger's checkpoints stand at the history's end as the scheduled runs would have left them.
    const platform = world.platform;
    say(`  platform full run over the history: ${await orMissing(() => fullRun(platform, '/v1/system/reconciliation/runs'))}`);
    const caughtUpTenant = await reconcileUntilCaughtUp(world.big.client, '/v1/admin/reconciliation', CHECK3_LIMIT_PER_SCOPE);
    const caughtUpPlatform = await reconcileUntilCaughtUp(world.platform, '/v1/system/reconciliation', CHECK3_LIMIT_PER_SCOPE);
    say(
      `  incremental checks until the marks passed the history: tenant ${caughtUpTenant.runs} runs (${(caughtUpTenant.ms / 1000).toFixed(1)} s), platform ${caughtUpPlatform.runs} (${(caughtUpPlatform.ms / 1000).toFixed(1)} s)`,
    );

    say('  measuring at scale');
    const wallet = world.big.wallets[1] ?? world.big.wallets[0];
    const statementDepth = Math.floor(0.9 * (history.linesByWallet.get(wallet?.id ?? '') ?? 0));
    const scale = await measure(world, { middleAt: history.middleAt, statementDepth });
    printSideBySide(empty, scale);
    if (ROUNDS > 0) world.entries += await alternateLoad(system, runId, world.big);
    runDemo(system);
  } finally {
    await pool.close();
    await world?.ledgerDb.destroy();
    await world?.paymentsDb.destroy();
    await system.stop();
    // A history of millions of lines is gigabytes on a shared machine: dropped whatever happened.
    if (process.env.BENCH_SCALE_KEEP === '1') say(`  databases ${runId}_* kept (BENCH_SCALE_KEEP=1)`);
    else await dropSystem(serverUrl, amqpServerUrl, runId);
  }
}

/** `npm run demo` against this system, other tenants' history in it: a new tenant's whole journey must still end green. */
function runDemo(system: RunningSystem): void {
  const started = performance.now();
  const demo = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/demo.ts'], {
    env: system.env,
    encoding: 'utf8',
    timeout: 15 * 60_000,
  });
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const tail = `${demo.stdout ?? ''}${demo.stderr ?? ''}`.trim().split('\n').slice(-3).join(' | ');
  say(
    `  npm run demo on the system with the history: ${demo.status === 0 ? 'green' : `FAILED (exit ${demo.status ?? demo.signal})`} in ${seconds} s; ${tail}`,
  );
  if (demo.status !== 0) process.exitCode = 1;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
