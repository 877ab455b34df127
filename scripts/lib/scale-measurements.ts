import { isWalletApiError, type WalletClient } from '@wallet/sdk';
import { percentile } from './system';

/**
 * The reads and reconciliations the scale benchmark times, each the same request on the empty
 * system and at scale. A route this version of the system does not have (404 NOT_FOUND from the
 * gateway's route table) is reported as missing, not as a failure: the benchmark measures it
 * once the route exists.
 */

export const ROUTE_MISSING = 'n/a (route missing)';

export class RouteMissing extends Error {}

type Query = Record<string, string | number>;

/** GET or POST through the client; 404 NOT_FOUND (no such route) becomes RouteMissing. */
export async function call(
  client: WalletClient,
  method: 'GET' | 'POST',
  path: string,
  query?: Query,
): Promise<{ status: number; data: unknown }> {
  try {
    const answer = await client.request({ method, path, ...(query ? { query } : {}) }, { maxRetries: 0, timeoutMs: 30 * 60_000 });
    return { status: answer.status, data: answer.data };
  } catch (error) {
    if (isWalletApiError(error) && error.status === 404 && error.serverCode === 'NOT_FOUND') throw new RouteMissing(`${method} ${path}`);
    throw error;
  }
}

export interface Timing {
  p50: number;
  max: number;
}

/** `reads` sequential calls; p50 and max latency in ms. */
export async function timeReads(reads: number, read: () => Promise<unknown>): Promise<Timing> {
  const latencies: number[] = [];
  for (let index = 0; index < reads; index += 1) {
    const started = performance.now();
    await read();
    latencies.push(performance.now() - started);
  }
  latencies.sort((a, b) => a - b);
  return { p50: percentile(latencies, 0.5), max: latencies[latencies.length - 1] ?? Number.NaN };
}

export function formatTiming(timing: Timing): string {
  return `${timing.p50.toFixed(1)} ms (max ${timing.max.toFixed(1)})`;
}

/** A figure, or why there is none: a missing route is `n/a`, anything else fails the run. */
export async function orMissing(measure: () => Promise<string>): Promise<string> {
  try {
    return await measure();
  } catch (error) {
    if (error instanceof RouteMissing) return ROUTE_MISSING;
    throw error;
  }
}

interface ReconciliationAnswer {
  status: string;
  checks: Array<{ name: string; status: string; mismatches: unknown[] }>;
  coverage?: { records?: Array<{ records: number; entries: number }> };
}

/**
 * A reconciliation asked now: its time and status. A mismatch fails the run (the history or the
 * system is wrong); no answer in time (a gateway or service deadline) is reported as such.
 */
export async function reconcileNow(client: WalletClient, path: string): Promise<{ ms: number; status: string; covered?: number }> {
  const started = performance.now();
  let data: unknown;
  try {
    data = (await call(client, 'GET', path)).data;
  } catch (error) {
    if (!isWalletApiError(error) || error.status < 500) throw error;
    return { ms: performance.now() - started, status: `no answer (${error.status} ${error.serverCode ?? ''})` };
  }
  const ms = performance.now() - started;
  const answer = data as ReconciliationAnswer;
  if (answer.status !== 'ok') {
    const found = answer.checks
      .filter((check) => check.status !== 'ok')
      .map((check) => `${check.name}: ${JSON.stringify(check.mismatches.slice(0, 3))}`);
    throw new Error(`GET ${path} answered ${answer.status}: ${found.join('; ')}`);
  }
  const covered = Math.max(0, ...(answer.coverage?.records ?? []).flatMap((each) => [each.records, each.entries]));
  return { ms, status: answer.status, covered };
}

/**
 * Incremental checks until the marks have passed the bulk history, as the scheduled runs would
 * have while a real history accrued: one run reads at most `perRun` records and entries per scope
 * and type, so the check after a build of millions would otherwise still be catching up when the
 * benchmark times "10,000 entries new". One more run after the last short one, as a mark may
 * trail by a run (see advanceHighWater). Answers the runs and the time they took.
 */
export async function reconcileUntilCaughtUp(
  client: WalletClient,
  path: string,
  perRun: number,
): Promise<{ runs: number; ms: number; status: string }> {
  let runs = 0;
  let ms = 0;
  for (let short = 0; short < 2;) {
    const outcome = await reconcileNow(client, path);
    runs += 1;
    ms += outcome.ms;
    if (outcome.status !== 'ok') return { runs, ms, status: outcome.status };
    short = (outcome.covered ?? 0) < perRun ? short + 1 : 0;
  }
  return { runs, ms, status: 'ok' };
}

/** A reconciliation's table cell: its time, and its status unless ok. */
export function reconciliationCell(outcome: { ms: number; status: string }): string {
  return `${outcome.ms.toFixed(0)} ms${outcome.status === 'ok' ? '' : `, ${outcome.status}`}`;
}

interface FullRun {
  id: string;
  state: string;
  status: string | null;
  error: string | null;
  progress?: { ledger?: { lines?: number } | null; records?: number };
}

/**
 * A full re-verification in the background: POST .../runs (202 with the run), then its state
 * every 250 ms until it succeeded or failed. Its time, the ledger lines it read per second (both
 * passes, as its progress counts them), and what it found unless ok.
 */
export async function fullRun(client: WalletClient, runsPath: string): Promise<string> {
  const started = performance.now();
  const { data } = await call(client, 'POST', runsPath);
  let run = data as FullRun;
  while (run.state === 'queued' || run.state === 'running') {
    await new Promise((resolve) => setTimeout(resolve, 250));
    run = (await call(client, 'GET', `${runsPath}/${run.id}`)).data as FullRun;
  }
  const seconds = (performance.now() - started) / 1000;
  const lines = run.progress?.ledger?.lines;
  const figures = `${seconds.toFixed(2)} s${lines !== undefined ? `, ${Math.round(lines / seconds).toLocaleString('en-US')} lines read/s over its two passes` : ''}`;
  // Printed rather than thrown: the other measurements still say something.
  return run.state === 'succeeded' && run.status === 'ok'
    ? figures
    : `${figures}, ${run.state} ${run.status ?? ''} ${run.error ?? ''}`.trim();
}

/** Pages of the timed reads' size, so a short statement still has pages to go down. */
const STATEMENT_WALK_PAGE = 50;

interface StatementPage {
  data: unknown[];
  nextCursor: string | null;
}

/**
 * The cursor of a statement page deep in a wallet's history, walked to page by page as a client
 * would: `depth` lines from the newest, or, when the statement ends before that, the page 90 %
 * of the way down.
 */
export async function deepStatementCursor(
  client: WalletClient,
  walletId: string,
  depth: number,
): Promise<{ cursor: string | null; linesDown: number }> {
  const cursors: Array<{ cursor: string; linesDown: number }> = [];
  let linesDown = 0;
  let cursor: string | null = null;
  do {
    const page = (
      await call(client, 'GET', `/v1/wallets/${walletId}/entries`, { limit: STATEMENT_WALK_PAGE, ...(cursor ? { cursor } : {}) })
    ).data as StatementPage;
    linesDown += page.data.length;
    cursor = page.nextCursor;
    if (cursor) cursors.push({ cursor, linesDown });
  } while (cursor !== null && linesDown < depth);
  if (cursor !== null) return { cursor, linesDown };
  const chosen = cursors[Math.floor(cursors.length * 0.9)];
  return chosen ? chosen : { cursor: null, linesDown: 0 };
}
