import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import BigNumber from 'bignumber.js';
import {
  type Environment,
  type LedgerPostV1,
  type PostingLine,
  reconciliationResultSchema,
  type ReconciliationResult,
} from '@wallet/contracts';
import { createDb, type Db, type InternalClaims, signInternalToken } from '@wallet/kit';
import { LedgerCommandClient } from '@wallet/money-commands';
import { createTestDatabase, createTestVhost } from '@wallet/kit/testing';
import { type RunningService, start } from '../src/main';

export const INTERNAL_SECRET = 'ledger-tests-internal-token-secret-0123456789';

/** Real parts: a fresh PostgreSQL database and RabbitMQ vhost, the real ledger service in-process. */
export interface LedgerHarness {
  env: NodeJS.ProcessEnv;
  databaseUrl: string;
  amqpUrl: string;
  service: RunningService;
  client: LedgerCommandClient;
  db: Db;
  get(path: string, claims: Partial<InternalClaims> & { tenantId: string | null }): Promise<{ status: number; body: any }>;
  /** A POST with a JSON body, as `get` is made. */
  post(path: string, body: unknown, claims: Partial<InternalClaims> & { tenantId: string | null }): Promise<{ status: number; body: any }>;
  close(): Promise<void>;
}

export async function startLedgerHarness(
  options: { instances?: number; env?: NodeJS.ProcessEnv } = {},
): Promise<LedgerHarness & { services: RunningService[] }> {
  const databaseUrl = await createTestDatabase('ledger', { migratedFor: 'ledger' });
  const amqpUrl = await createTestVhost('ledger');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    LEDGER_DATABASE_URL: databaseUrl,
    AMQP_URL: amqpUrl,
    LEDGER_PORT: '0',
    INTERNAL_TOKEN_SECRET: INTERNAL_SECRET,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    // A round falling mid-test would move the checkpoints a test reads: the follower's own tests turn it on.
    LEDGER_RECONCILIATION_FOLLOW_INTERVAL_MS: '0',
    ...options.env,
  };
  const services: RunningService[] = [];
  for (let index = 0; index < (options.instances ?? 1); index += 1) services.push(await start(env));
  const service = services[0] as RunningService;
  const client = await LedgerCommandClient.connect(amqpUrl, 'ledger-test-client');
  const db = createDb(databaseUrl, { poolMax: 4 });
  return {
    env,
    databaseUrl,
    amqpUrl,
    service,
    services,
    client,
    db,
    get: (path, claims) => callLedger(service.port, { method: 'GET', path, claims }),
    post: (path, body, claims) => callLedger(service.port, { method: 'POST', path, claims, body }),
    async close() {
      await client.close();
      for (const running of services) await running.close();
      await db.destroy();
    },
  };
}

/** A call to the ledger's HTTP app with an internal token of these claims (a tenant's unless tenantId is null). */
async function callLedger(
  port: number,
  call: { method: 'GET' | 'POST'; path: string; claims: Partial<InternalClaims> & { tenantId: string | null }; body?: unknown },
): Promise<{ status: number; body: any }> {
  const { claims } = call;
  const token = signInternalToken(INTERNAL_SECRET, {
    surface: claims.surface ?? (claims.tenantId ? 'tenant' : 'system'),
    tenantId: claims.tenantId,
    environment: claims.environment ?? (claims.tenantId ? 'test' : null),
    keyId: claims.keyId ?? null,
    scopes: claims.scopes ?? ['ledger:read'],
    actor: null,
  });
  const headers: Record<string, string> = { 'x-internal-token': token };
  if (call.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`http://127.0.0.1:${port}${call.path}`, {
    method: call.method,
    headers,
    ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
  });
  return { status: response.status, body: await response.json() };
}

const ROOT = path.resolve(__dirname, '../../..');

/** The ledger as a separate OS process, so it can be killed with SIGKILL or frozen with SIGSTOP mid-stream. */
export function spawnLedger(env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'services/ledger/src/main.ts')], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

let sequence = 0;
export function commandId(label = 'cmd'): string {
  sequence += 1;
  return `${label}-${sequence}-${randomUUID().slice(0, 8)}`;
}

export function newTenantId(): string {
  return `tn_test${randomUUID().replace(/-/g, '').slice(0, 16)}`;
}

export function walletLine(walletId: string, direction: 'DR' | 'CR', amount: string, currencyCode = 'USD'): PostingLine {
  return { accountName: `wallet:owner-${walletId}`, walletId, direction, amount, currencyCode };
}

export function systemLine(accountName: string, direction: 'DR' | 'CR', amount: string, currencyCode = 'USD'): PostingLine {
  return { accountName, direction, amount, currencyCode };
}

interface Scope {
  tenantId: string;
  environment?: Environment;
}

/** Money in from mobile money: DR momo-float, CR wallet. */
export function depositCommand(
  scope: Scope,
  walletId: string,
  amount: string,
  options: { id?: string; currencyCode?: string } = {},
): LedgerPostV1 {
  const currencyCode = options.currencyCode ?? 'USD';
  return {
    type: 'ledger.post.v1',
    commandId: options.id ?? commandId('dep'),
    tenantId: scope.tenantId,
    environment: scope.environment ?? 'test',
    kind: 'momo_deposit',
    reference: { type: 'deposit', id: `dep_${randomUUID().slice(0, 8)}` },
    lines: [systemLine('momo-float:mtn', 'DR', amount, currencyCode), walletLine(walletId, 'CR', amount, currencyCode)],
  };
}

/** A transfer with an optional fee credited to revenue:fees (the hot account). */
export function transferCommand(
  scope: Scope,
  from: string,
  to: string,
  amount: string,
  options: { id?: string; fee?: string; currencyCode?: string } = {},
): LedgerPostV1 {
  const currencyCode = options.currencyCode ?? 'USD';
  const lines: PostingLine[] = [walletLine(from, 'DR', amount, currencyCode), walletLine(to, 'CR', amount, currencyCode)];
  if (options.fee && !new BigNumber(options.fee).isZero()) {
    lines.push(walletLine(from, 'DR', options.fee, currencyCode), systemLine('revenue:fees', 'CR', options.fee, currencyCode));
  }
  return {
    type: 'ledger.post.v1',
    commandId: options.id ?? commandId('tx'),
    tenantId: scope.tenantId,
    environment: scope.environment ?? 'test',
    kind: 'transfer',
    reference: { type: 'transfer', id: `tx_${randomUUID().slice(0, 8)}` },
    lines,
  };
}

export async function walletBalance(db: Db, tenantId: string, walletId: string, environment: Environment = 'test'): Promise<string | null> {
  const row = await db('accounts').where({ tenant_id: tenantId, environment, wallet_id: walletId }).first('balance');
  return row ? new BigNumber(row.balance as string).toFixed() : null;
}

/** The seq of an entry, which its lines are keyed by. */
export async function entrySeqOf(db: Db, entryId: string): Promise<string> {
  const row: { seq: string } | undefined = await db('journal_entries').where({ id: entryId }).first('seq');
  if (!row) throw new Error(`no entry ${entryId}`);
  return row.seq;
}

/**
 * The ledger's invariants, checked straight in the database: every entry balances per currency,
 * every materialized balance equals the sum of its lines, no wallet below zero, and no command
 * took effect twice.
 */
export async function ledgerInvariantViolations(db: Db): Promise<string[]> {
  const problems: string[] = [];
  const unbalanced = await db.raw(`
    SELECT l.entry_seq, a.currency_code FROM journal_lines l LEFT JOIN accounts a ON a.num = l.account_num GROUP BY l.entry_seq, a.currency_code
    HAVING SUM(CASE WHEN l.direction = 'DR' THEN l.amount ELSE -l.amount END) <> 0`);
  for (const row of unbalanced.rows) problems.push(`entry #${row.entry_seq} does not balance in ${row.currency_code}`);
  const drifted = await db.raw(`
    SELECT a.id, a.balance::text, COALESCE(SUM(CASE WHEN l.direction = a.normal_side THEN l.amount ELSE -l.amount END), 0)::text AS computed
      FROM accounts a LEFT JOIN journal_lines l ON l.account_num = a.num
     GROUP BY a.id HAVING a.balance <> COALESCE(SUM(CASE WHEN l.direction = a.normal_side THEN l.amount ELSE -l.amount END), 0)`);
  for (const row of drifted.rows) problems.push(`account ${row.id} balance ${row.balance} != lines ${row.computed}`);
  const negative = await db.raw(`SELECT id, balance::text FROM accounts WHERE wallet_id IS NOT NULL AND balance < 0`);
  for (const row of negative.rows) problems.push(`wallet account ${row.id} is negative: ${row.balance}`);
  const doubled = await db.raw(`SELECT command_key, COUNT(*) AS n FROM journal_entries GROUP BY command_key HAVING COUNT(*) > 1`);
  for (const row of doubled.rows) problems.push(`command ${row.command_key} posted ${row.n} entries`);
  const unrecorded = await db.raw(
    `SELECT e.id FROM journal_entries e LEFT JOIN processed_commands p ON command_key(p.command_id) = e.command_key WHERE p.command_id IS NULL`,
  );
  for (const row of unrecorded.rows) problems.push(`entry ${row.id} has no recorded result`);
  const mismatched =
    await db.raw(`SELECT p.command_id FROM processed_commands p LEFT JOIN journal_entries e ON e.command_key = command_key(p.command_id)
     WHERE (p.result->>'status' = 'posted') <> (e.id IS NOT NULL) OR (e.id IS NOT NULL AND p.result->>'journalEntryId' <> e.id)`);
  for (const row of mismatched.rows) problems.push(`recorded result of ${row.command_id} does not match the journal`);
  return problems;
}

/** Checks 1 and 2 of one tenant, as its route answers them now. */
export async function reconcileTenant(ledger: LedgerHarness, tenantId: string): Promise<ReconciliationResult> {
  const answer = await ledger.get('/v1/ledger/reconciliation', { tenantId, scopes: ['analytics:read'] });
  expect(answer.status).toBe(200);
  return reconciliationResultSchema.parse(answer.body);
}

/** Sends a command through the broker and expects it posted. */
export async function postExpectingPosted(ledger: LedgerHarness, command: LedgerPostV1): Promise<void> {
  expect((await ledger.client.request(command)).status).toBe('posted');
}
