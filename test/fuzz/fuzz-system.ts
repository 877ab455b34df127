import http from 'node:http';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import amqp from 'amqplib';
import pg from 'pg';
import { SMTPServer } from 'smtp-server';
import { momoWebhookSignature, ROUTES } from '@wallet/contracts';
import { waitFor } from '@wallet/kit/testing';
import { WalletClient } from '@wallet/sdk';
import { type SecuritySystem, startSecuritySystem, SYSTEM_KEY } from '../security/in-process-system';
import { emptyPools, type FuzzRequest, type FuzzWorld, type IdPools, kindOfPathParam, type WalletRef } from './generators';
import type { Answer } from './properties';
import { serverErrorOf } from './server-errors';

/**
 * The whole system in-process on fresh databases and a fresh vhost (the security tests' harness),
 * a world of real resources in three tenants and both environments to aim requests at, and a
 * cheap fingerprint of every table that holds business state.
 */

const PASSWORD = 'a long enough password';
const WEBHOOK = '/v1/deposits/momo-webhook';

const DASHBOARD_URL = 'http://dashboard.fuzz';

/** Invite emails, for the tokens that POST /v1/auth/accept-invite takes. */
async function startInviteInbox(tokens: string[]): Promise<{ url: string; close(): Promise<void> }> {
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8').replace(/=\r?\n/g, '');
        for (const match of text.matchAll(/accept-invite\?token=3D([A-Za-z0-9_-]{43})|accept-invite\?token=([A-Za-z0-9_-]{43})/g)) tokens.push((match[1] ?? match[2]) as string);
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  const { port } = smtp.server.address() as AddressInfo;
  return { url: `smtp://127.0.0.1:${port}`, close: () => new Promise<void>((resolve) => smtp.close(() => resolve())) };
}

/**
 * Rates high enough that the fuzz reaches the handlers; the limiter still runs on every request.
 * No payout delivery and no scheduled reconciliation or table maintenance: nothing changes state
 * on its own between a request and the snapshot after it.
 */
const FUZZ_ENV: NodeJS.ProcessEnv = {
  GATEWAY_RATE_LIMIT_KEY_PER_SECOND: '1000000',
  GATEWAY_RATE_LIMIT_KEY_BURST: '1000000',
  GATEWAY_RATE_LIMIT_TENANT_PER_SECOND: '1000000',
  GATEWAY_RATE_LIMIT_TENANT_BURST: '1000000',
  GATEWAY_RATE_LIMIT_IP_PER_SECOND: '1000000',
  GATEWAY_RATE_LIMIT_IP_BURST: '1000000',
  PAYMENTS_PAYOUT_RAIL_INTERVAL_MS: '0',
  // Runs only the schedule records, for GET /v1/system/reconciliation/runs/{id}; they write nothing else.
  PAYMENTS_RECONCILIATION_INTERVAL_MS: '5000',
  TABLE_MAINTENANCE_INTERVAL_MS: '0',
  // Errors only, into the capture the test installs: the cause of each 500.
  LOG_LEVEL: 'error',
};

// ---- state fingerprints ---------------------------------------------------------------------

/**
 * Tables left out of the fingerprint, each because it changes on refused requests by design:
 * the gateway's request logs, nonces and rate buckets, the idempotency records that remember
 * refusals too, migrations, the analytics read models (fed by events, checked against the
 * journal elsewhere) and reconciliation runs (a GET records one).
 */
const UNTRACKED = /^(knex_migrations.*|idempotency.*|request_logs|request_nonces|rate_limit.*|analytics_.*|reconciliation_runs)$/;
/** Money: never touched by a refused request, even one the API records. */
export const MONEY_TABLES: ReadonlySet<string> = new Set(['ledger.accounts', 'ledger.journal_entries', 'ledger.journal_lines']);

export interface TableState {
  rows: number;
  /** Sum of the rows' xmin: any insert, update or delete since changes it. */
  versions: string;
}
export type Snapshot = Map<string, TableState>;

export interface TableChange {
  table: string;
  rowsBefore: number;
  rowsAfter: number;
}

export function changesBetween(before: Snapshot, after: Snapshot): TableChange[] {
  const changes: TableChange[] = [];
  for (const [table, state] of after) {
    const previous = before.get(table);
    if (!previous || previous.rows !== state.rows || previous.versions !== state.versions) changes.push({ table, rowsBefore: previous?.rows ?? 0, rowsAfter: state.rows });
  }
  return changes;
}

interface TrackedDatabase {
  name: string;
  pool: pg.Pool;
  query: string;
}

async function trackDatabase(name: string, url: string): Promise<TrackedDatabase | null> {
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  const tables = (await pool.query<{ table_name: string }>("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name")).rows
    .map((row) => row.table_name)
    .filter((table) => !UNTRACKED.test(table));
  if (tables.length === 0) {
    await pool.end();
    return null;
  }
  const query = tables.map((table) => `SELECT '${name}.${table}' AS name, count(*)::int AS rows, coalesce(sum(xmin::text::bigint), 0)::text AS versions FROM "${table}"`).join(' UNION ALL ');
  return { name, pool, query };
}

/**
 * How long nothing may change before the system counts as settled: longer than the linger of the
 * ledger-events consumers (50 ms), during which delivered events wait in memory where no table or
 * queue shows them. (Outbox rows wait for their delete in the table, seen by the empty-outbox test.)
 */
const QUIET_MS = 120;

// ---- the broker: messages still to be consumed ---------------------------------------------------

interface QueueWatch {
  backlog(): Promise<number>;
  close(): Promise<void>;
}

async function watchQueues(amqpUrl: string): Promise<QueueWatch> {
  const parsed = new URL(amqpUrl);
  const vhost = decodeURIComponent(parsed.pathname.slice(1));
  const base = process.env.TEST_AMQP_MANAGEMENT_URL ?? `http://${parsed.hostname}:15672`;
  const auth = Buffer.from(`${decodeURIComponent(parsed.username || 'guest')}:${decodeURIComponent(parsed.password || 'guest')}`).toString('base64');
  let names: string[] = [];
  try {
    const response = await fetch(`${base}/api/queues/${encodeURIComponent(vhost)}?columns=name,exclusive`, { headers: { authorization: `Basic ${auth}` }, signal: AbortSignal.timeout(5000) });
    if (response.ok) names = ((await response.json()) as Array<{ name: string; exclusive: boolean }>).filter((queue) => !queue.exclusive && !queue.name.startsWith('amq.')).map((queue) => queue.name);
  } catch {
    // Without the management API the settling rests on outboxes and table fingerprints alone.
  }
  const connection = await amqp.connect(amqpUrl);
  let channel = await connection.createChannel();
  return {
    async backlog() {
      let total = 0;
      for (const name of names) {
        try {
          total += (await channel.checkQueue(name)).messageCount;
        } catch {
          names = names.filter((each) => each !== name);
          channel = await connection.createChannel();
        }
      }
      return total;
    },
    close: async () => {
      await connection.close().catch(() => undefined);
    },
  };
}

// ---- the system --------------------------------------------------------------------------------

export interface FuzzSystem {
  world: FuzzWorld;
  send(request: FuzzRequest): Promise<Answer>;
  snapshot(): Promise<Snapshot>;
  /** Waits until no outbox holds a message, no queue a delivery, and two fingerprints in a row agree. */
  settle(): Promise<{ snapshot: Snapshot; settled: boolean }>;
  close(): Promise<void>;
}

function sendRaw(baseUrl: string, agent: http.Agent, request: { method: string; pathWithQuery: string; headers: Record<string, string>; body: Buffer | null }): Promise<Answer> {
  const target = new URL(baseUrl);
  return new Promise((resolve) => {
    const headers: Record<string, string> = { ...request.headers };
    if (request.body !== null) headers['content-length'] = String(request.body.length);
    let outgoing: http.ClientRequest;
    try {
      outgoing = http.request({ host: target.hostname, port: target.port, method: request.method, path: request.pathWithQuery, headers, agent, timeout: 60_000 });
    } catch (error) {
      resolve({ status: 0, headers: {}, bodyText: `the client could not send it: ${(error as Error).message}` });
      return;
    }
    outgoing.on('response', (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, bodyText: Buffer.concat(chunks).toString('utf8') }));
      incoming.on('error', (error) => resolve({ status: 0, headers: {}, bodyText: `the answer broke off: ${error.message}` }));
    });
    outgoing.on('timeout', () => outgoing.destroy(new Error('no answer within 60 s')));
    outgoing.on('error', (error) => resolve({ status: 0, headers: {}, bodyText: `no answer: ${error.message}` }));
    outgoing.end(request.body ?? undefined);
  });
}

interface Tenant {
  id: string;
  slug: string;
  admin: WalletClient;
  adminKey: { id: string; key: string };
}

async function settledCall<Value>(call: () => Promise<Value>, what: string): Promise<Value> {
  // A tenant just made reaches payments and the ledger through events, moments later.
  let last: unknown;
  try {
    return await waitFor(
      async () => {
        try {
          return await call();
        } catch (error) {
          last = error;
          return undefined;
        }
      },
      { timeoutMs: 30_000, intervalMs: 200, what },
    );
  } catch {
    throw new Error(`${what} failed: ${(last as Error)?.message ?? last}`);
  }
}

async function buildWorld(system: SecuritySystem, inviteTokens: string[]): Promise<FuzzWorld> {
  const platform = new WalletClient({ baseUrl: system.adminUrl, auth: { type: 'system', systemKey: SYSTEM_KEY }, maxRetries: 0 });
  const anonymous = new WalletClient({ baseUrl: system.publicUrl, maxRetries: 0 });
  const keyClient = (key: string) => new WalletClient({ baseUrl: system.publicUrl, auth: { type: 'secret', apiKey: key }, maxRetries: 0 });
  const config = { defaultCurrency: 'KES', allowedCurrencies: ['KES', 'UGX', 'KWD'], maxTransactionAmount: '1000000' };

  const email = (who: string) => `${who}-${randomUUID().slice(0, 8)}@example.com`;
  const newTenant = async (slug: string): Promise<Tenant> => {
    const tenant = await platform.system.tenants.create({ name: `Fuzz ${slug}`, slug, config });
    const key = await platform.apiKeys.createForTenant(tenant.id, { name: 'fuzz admin', scopes: ['tenant:manage'], environment: 'live' });
    return { id: tenant.id, slug, admin: keyClient(key.key as string), adminKey: { id: key.id, key: key.key as string } };
  };
  const a = await newTenant('fuzz-a');
  const b = await newTenant('fuzz-b');
  const c = await platform.system.tenants.create({ name: 'Fuzz sacrificial', slug: 'fuzz-c', config });
  // Organizations whose invited admins leave tokens in the inbox.
  for (const slug of ['fuzz-d', 'fuzz-e']) await platform.system.organizations.create({ name: `Fuzz ${slug}`, slug, config, admin: { name: 'Invited', email: email(slug) } });
  const own = emptyPools();
  const otherEnvironment = emptyPools();
  const otherTenant = emptyPools();
  const protectedIds = new Set<string>([a.id, b.id, a.adminKey.id, b.adminKey.id]);
  own.tenant.push(a.id);
  otherTenant.tenant.push(b.id, c.id);

  // Keys: the fuzz's own (secret and signed), the test environment's, and some to be revoked or rotated.
  const hmac = await a.admin.apiKeys.create({ name: 'fuzz signer', authMode: 'hmac', scopes: ['tenant:manage'], environment: 'live' });
  const testKey = await platform.apiKeys.createForTenant(a.id, { name: 'fuzz test admin', scopes: ['tenant:manage'], environment: 'test' });
  const aTest = keyClient(testKey.key as string);
  const revoked = await a.admin.apiKeys.create({ name: 'revoked', scopes: ['ledger:read'], environment: 'live' });
  await a.admin.apiKeys.revoke(revoked.id);
  protectedIds.add(hmac.id).add(testKey.id).add(revoked.id);
  own.apiKey.push(a.adminKey.id, hmac.id);
  for (let i = 0; i < 2; i += 1) own.apiKey.push((await a.admin.apiKeys.create({ name: `sacrificial ${i}`, scopes: ['ledger:read'], environment: 'live' })).id);
  otherEnvironment.apiKey.push(testKey.id, (await aTest.apiKeys.create({ name: 'test sacrificial', scopes: ['ledger:read'], environment: 'test' })).id);
  otherTenant.apiKey.push(b.adminKey.id, (await b.admin.apiKeys.create({ name: 'b sacrificial', scopes: ['ledger:read'], environment: 'live' })).id);

  // Members: a maker, a checker, an admin who logs in, and some to be changed.
  const member = async (tenant: Tenant, name: string, orgRole: 'operator' | 'approver' | 'org-admin' | 'observer') => {
    const created = await tenant.admin.team.create({ name, email: email(name), password: PASSWORD, orgRole });
    return created;
  };
  const requester = await member(a, 'requester', 'operator');
  const approver = await member(a, 'approver', 'approver');
  const loginAdmin = await member(a, 'admin', 'org-admin');
  own.member.push(requester.id, approver.id, loginAdmin.id, (await member(a, 'sacrificial-1', 'observer')).id, (await member(a, 'sacrificial-2', 'observer')).id);
  const bRequester = await member(b, 'requester', 'operator');
  otherTenant.member.push(bRequester.id, (await member(b, 'approver', 'approver')).id);
  protectedIds.add(requester.id).add(approver.id).add(loginAdmin.id).add(bRequester.id);
  const session = await anonymous.auth.login({ email: loginAdmin.email, password: PASSWORD, tenantSlug: a.slug });

  // Mobile money providers: the one webhooks are signed for, and one to rotate.
  const provider = await a.admin.momoProviders.create({ providerCode: 'mtn', name: 'MTN' });
  const sacrificialProvider = await a.admin.momoProviders.create({ providerCode: 'airtel', name: 'Airtel' });
  const bProvider = await b.admin.momoProviders.create({ providerCode: 'mtn', name: 'MTN' });
  own.momoProvider.push(provider.id, sacrificialProvider.id);
  otherTenant.momoProvider.push(bProvider.id);
  protectedIds.add(provider.id).add(bProvider.id);

  // Wallets, funded by signed webhooks; the rich one holds more than the tenant's maximum.
  const wallets: WalletRef[] = [];
  const createWallet = async (client: WalletClient, ownerId: string, currencyCode: string, pool: IdPools, keep = true) => {
    const wallet = await settledCall(() => client.wallets.create({ ownerType: 'user', ownerId, currencyCode }), `wallet ${ownerId}`);
    pool.wallet.push(wallet.id);
    if (pool === own) wallets.push({ id: wallet.id, currencyCode, accountName: `wallet:${ownerId}` });
    if (keep) protectedIds.add(wallet.id);
    return wallet.id;
  };
  let deliveries = 0;
  const fund = async (walletId: string, amount: string, currencyCode: string, secret: string) => {
    deliveries += 1;
    const fields = { transactionId: `fz-seed-${deliveries}`, walletId, amountText: amount, currencyCode, phoneNumber: '+254700000001', timestamp: new Date().toISOString() };
    const body = { transactionId: fields.transactionId, phoneNumber: fields.phoneNumber, amount, currencyCode, walletId, signature: momoWebhookSignature(secret, fields), timestamp: fields.timestamp, providerCode: 'mtn' };
    const deposit = (await settledCall(() => anonymous.request({ method: 'POST', path: WEBHOOK, body }), `funding ${walletId}`)).data as { id: string; environment: string; journalEntryId: string | null };
    const pool = deposit.environment === 'test' ? otherEnvironment : wallets.some((wallet) => wallet.id === walletId) ? own : otherTenant;
    pool.deposit.push(deposit.id);
  };
  const rich = await createWallet(a.admin, 'fz-rich', 'KES', own);
  for (let i = 0; i < 3; i += 1) await fund(rich, '900000.00', 'KES', provider.webhookSecret);
  const funded = await createWallet(a.admin, 'fz-funded', 'KES', own);
  await fund(funded, '100000.00', 'KES', provider.webhookSecret);
  const payee = await createWallet(a.admin, 'fz-payee', 'KES', own);
  const ugx = await createWallet(a.admin, 'fz-ugx', 'UGX', own);
  await fund(ugx, '100000', 'UGX', provider.webhookSecret);
  await createWallet(a.admin, 'fz-ugx-payee', 'UGX', own);
  const kwd = await createWallet(a.admin, 'fz-kwd', 'KWD', own);
  await fund(kwd, '100.000', 'KWD', provider.webhookSecret);
  await createWallet(a.admin, 'fz-kwd-payee', 'KWD', own);
  const toFreeze = await createWallet(a.admin, 'fz-freeze', 'KES', own, false);
  await fund(toFreeze, '1000.00', 'KES', provider.webhookSecret);
  await createWallet(a.admin, 'fz-freeze-empty', 'KES', own, false);
  const testWallet = await createWallet(aTest, 'fz-test', 'KES', otherEnvironment);
  await fund(testWallet, '1000.00', 'KES', provider.webhookSecret);
  const testPayee = await createWallet(aTest, 'fz-test-payee', 'KES', otherEnvironment);
  const bWallet = await createWallet(b.admin, 'fz-b', 'KES', otherTenant);
  await fund(bWallet, '1000.00', 'KES', bProvider.webhookSecret);
  const bPayee = await createWallet(b.admin, 'fz-b-payee', 'KES', otherTenant);

  // A record of every kind in every world, two of each of the fuzz tenant's so its lists have cursors.
  const transfer = async (client: WalletClient, from: string, to: string, pool: IdPools) => pool.transfer.push((await client.transfers.create({ fromWalletId: from, toWalletId: to, amount: '1.00', currencyCode: 'KES' })).id);
  await transfer(a.admin, funded, payee, own);
  await transfer(a.admin, funded, payee, own);
  await transfer(aTest, testWallet, testPayee, otherEnvironment);
  await transfer(b.admin, bWallet, bPayee, otherTenant);

  const slip = async (client: WalletClient, walletId: string, reference: string) =>
    (await client.deposits.submitBankSlip({ walletId, amount: '10.00', currencyCode: 'KES', bankCode: 'stanbic', slipReference: reference })).id;
  own.deposit.push(await slip(a.admin, funded, 'FZ-SEED-1'), await slip(a.admin, funded, 'FZ-SEED-2'));
  const verified = await slip(a.admin, funded, 'FZ-SEED-3');
  await a.admin.deposits.importStatement({ bankCode: 'stanbic', currencyCode: 'KES', lines: [{ date: new Date().toISOString().slice(0, 10), reference: 'fz-seed-3', amount: '10.00' }] });
  await a.admin.deposits.verify(verified, { actorId: 'ops-fuzz' });
  own.deposit.push(verified);
  otherEnvironment.deposit.push(await slip(aTest, testWallet, 'FZ-SEED-T'));
  otherTenant.deposit.push(await slip(b.admin, bWallet, 'FZ-SEED-B'));

  const payout = async (client: WalletClient, walletId: string, requestedBy: string) =>
    (await client.payouts.create({ walletId, amount: '1.00', currencyCode: 'KES', payoutMethod: 'momo', destination: { phoneNumber: '+254700000001', network: 'safaricom' }, requestedBy })).id;
  own.payoutCase.push(await payout(a.admin, funded, requester.id), await payout(a.admin, funded, requester.id));
  otherTenant.payoutCase.push(await payout(b.admin, bWallet, bRequester.id));

  const floatDeposit = async (client: WalletClient) => (await client.treasury.floatDeposits.create({ amount: '500.00', currencyCode: 'KES', rail: 'momo' })).id;
  own.floatDeposit.push(await floatDeposit(a.admin), await floatDeposit(a.admin));
  otherEnvironment.floatDeposit.push(await floatDeposit(aTest));
  otherTenant.floatDeposit.push(await floatDeposit(b.admin));

  const withdrawal = async (client: WalletClient, requestedBy: string) =>
    (await client.treasury.withdrawals.create({ source: 'operating_float', amount: '10.00', currencyCode: 'KES', payoutMethod: 'cash', destination: { recipientName: 'Fuzz' }, requestedBy })).id;
  own.withdrawal.push(await withdrawal(a.admin, requester.id), await withdrawal(a.admin, requester.id));
  otherTenant.withdrawal.push(await withdrawal(b.admin, bRequester.id));

  const schedule = async (client: WalletClient, name: string) => ((await client.request({ method: 'POST', path: '/v1/admin/fee-schedules', body: { name } })).data as { id: string }).id;
  own.feeSchedule.push(await schedule(a.admin, 'fuzz one'), await schedule(a.admin, 'fuzz two'));
  otherTenant.feeSchedule.push(await schedule(b.admin, 'b one'));

  // Journal entries of each world; reconciliation runs of the platform.
  const entries = async (client: WalletClient) => ((await client.request({ method: 'GET', path: '/v1/journal?limit=5' })).data as { data: Array<{ id: string }> }).data.map((entry) => entry.id);
  own.journalEntry.push(...(await entries(a.admin)));
  otherEnvironment.journalEntry.push(...(await entries(aTest)));
  otherTenant.journalEntry.push(...(await entries(b.admin)));
  const runs = await waitFor(
    async () => {
      const page = (await platform.request({ method: 'GET', path: '/v1/system/reconciliation/runs' })).data as { data: Array<{ id: string }> };
      return page.data.length > 0 ? page.data : undefined;
    },
    { timeoutMs: 30_000, intervalMs: 250, what: 'a scheduled reconciliation run' },
  );
  own.reconciliationRun.push(...runs.map((run) => run.id));
  await waitFor(async () => (inviteTokens.length >= 2 ? true : undefined), { timeoutMs: 30_000, what: 'the invite emails' });

  // Whose each resource is, for routes that name a tenant and one of its resources.
  const tenantOf: Record<string, string> = {};
  for (const [pools, tenantId] of [[own, a.id], [otherEnvironment, a.id], [otherTenant, b.id]] as const) {
    for (const [kind, ids] of Object.entries(pools)) if (kind !== 'tenant') for (const id of ids) tenantOf[id] = tenantId;
  }

  const world: FuzzWorld = {
    tenantId: a.id,
    tenantSlug: a.slug,
    maxTransactionAmount: config.maxTransactionAmount,
    currencies: config.allowedCurrencies,
    ids: { own, otherEnvironment, otherTenant },
    protectedIds,
    wallets,
    fundedWallets: [rich, rich, funded, ugx, kwd],
    members: { requester: requester.id, approver: approver.id, loginEmail: loginAdmin.email, loginPassword: PASSWORD },
    providerCode: 'mtn',
    webhookSecret: provider.webhookSecret,
    cursors: {},
    tenantOf,
    inviteTokens,
    credentials: {
      secretKey: a.adminKey.key,
      hmac: { keyId: hmac.id, signingSecret: hmac.signingSecret as string },
      sessionToken: session.token,
      systemKey: SYSTEM_KEY,
      revokedSecretKey: revoked.key as string,
    },
    usedIdempotencyKeys: [],
  };
  await collectCursors(world, a.admin, platform);
  return world;
}

/** One issued cursor of every list that has a second page, so forged ones can be made from real ones. */
async function collectCursors(world: FuzzWorld, tenant: WalletClient, platform: WalletClient): Promise<void> {
  for (const route of ROUTES) {
    if (route.method !== 'get' || !route.query || !('cursor' in route.query.shape)) continue;
    const path = route.path.replace(/\{(\w+)\}/g, (_match, name: string) => world.ids.own[kindOfPathParam(route.path, name)][0] ?? '');
    const client = route.surface === 'system' ? platform : tenant;
    try {
      const page = (await client.request({ method: 'GET', path: `${path}?limit=1` })).data as { nextCursor?: string | null };
      if (typeof page.nextCursor === 'string') world.cursors[route.path] = [page.nextCursor];
    } catch {
      // A list that answers nothing here still gets forged cursors made up from scratch.
    }
  }
}

export async function startFuzzSystem(label: string): Promise<FuzzSystem> {
  const inviteTokens: string[] = [];
  const inbox = await startInviteInbox(inviteTokens);
  const system = await startSecuritySystem(label, { ...FUZZ_ENV, SMTP_URL: inbox.url, DASHBOARD_URL }).catch(async (error: unknown) => {
    await inbox.close();
    throw error;
  });
  const tracked: TrackedDatabase[] = [];
  let queues: QueueWatch | undefined;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  const close = async () => {
    agent.destroy();
    await queues?.close();
    for (const database of tracked) await database.pool.end().catch(() => undefined);
    await system.close();
    await inbox.close();
  };
  try {
    const world = await buildWorld(system, inviteTokens);
    for (const service of ['identity', 'ledger', 'payments', 'treasury']) {
      const database = await trackDatabase(service, system.env[`${service.toUpperCase()}_DATABASE_URL`] as string);
      if (database) tracked.push(database);
    }
    queues = await watchQueues(system.env.AMQP_URL as string);
    const watch = queues;

    const snapshot = async (): Promise<Snapshot> => {
      const results = await Promise.all(tracked.map((database) => database.pool.query<{ name: string; rows: number; versions: string }>(database.query)));
      return new Map(results.flatMap((result) => result.rows.map((row) => [row.name, { rows: row.rows, versions: row.versions }] as const)));
    };
    const databaseNames = ['identity', 'ledger', 'payments', 'treasury'].map((service) => new URL(system.env[`${service.toUpperCase()}_DATABASE_URL`] as string).pathname.slice(1));
    const monitor = tracked[0] as TrackedDatabase;
    /** A consumer inside a transaction is work not yet visible in any table. */
    const busyBackends = async () =>
      (await monitor.pool.query<{ busy: number }>("SELECT count(*)::int AS busy FROM pg_stat_activity WHERE datname = ANY($1) AND state <> 'idle' AND pid <> pg_backend_pid()", [databaseNames])).rows[0]?.busy ?? 0;
    const outboxEmpty = (state: Snapshot) => [...state].every(([table, { rows }]) => !table.endsWith('.outbox') || rows === 0);
    const settle = async () => {
      let previous: Snapshot | undefined;
      let latest: Snapshot | undefined;
      let quietSince = Date.now();
      try {
        const settled = await waitFor(
          async () => {
            latest = await snapshot();
            const quiet = outboxEmpty(latest) && (await watch.backlog()) === 0 && (await busyBackends()) === 0;
            if (!quiet || previous === undefined || changesBetween(previous, latest).length > 0) {
              previous = quiet ? latest : undefined;
              quietSince = Date.now();
              return undefined;
            }
            return Date.now() - quietSince >= QUIET_MS ? latest : undefined;
          },
          { timeoutMs: 30_000, intervalMs: 40, what: 'the system to settle' },
        );
        return { snapshot: settled, settled: true };
      } catch {
        return { snapshot: latest ?? (await snapshot()), settled: false };
      }
    };
    const send = async (request: FuzzRequest): Promise<Answer> => {
      const baseUrl = request.listener === 'admin' ? system.adminUrl : system.publicUrl;
      const pathWithQuery = request.query === '' ? request.path : `${request.path}?${request.query}`;
      const answer = await sendRaw(baseUrl, agent, { method: request.method, pathWithQuery, headers: request.headers, body: request.body });
      const serverError = answer.status >= 500 ? serverErrorOf(request.headers['x-correlation-id'] ?? '') : undefined;
      return serverError ? { ...answer, serverError } : answer;
    };
    return { world, send, snapshot, settle, close };
  } catch (error) {
    await close();
    throw error;
  }
}
