import { randomUUID } from 'node:crypto';
import amqp from 'amqplib';
import { type LedgerPostV1, type PostingLine, TOPOLOGY } from '@wallet/contracts';
import { createDb, type Db, type InternalClaims, signInternalToken, upsertTenantConfig } from '@wallet/kit';
import { LedgerCommandClient } from '@wallet/money-commands';
import { createTestDatabase, createTestVhost, freePort, type TcpProxy, waitFor } from '@wallet/kit/testing';
import { start as startLedger } from '../../ledger/src/main';
import { start as startTreasury } from '../../treasury/src/main';
import { type RunningService, start } from '../src/main';

export const INTERNAL_SECRET = 'payments-tests-internal-token-secret-0123456789';

export interface HttpResult {
  status: number;
  headers: Headers;
  body: any;
  /** The body exactly as received. */
  text: string;
}

export interface RequestOptions {
  /** Sent as JSON.stringify(body). */
  body?: unknown;
  /** Sent exactly as written, for number tokens JSON.stringify cannot produce (1000000.50). */
  rawBody?: string;
  /** null sends no internal token at all; a string is sent as is. Default: a system token. */
  token?: string | null;
  correlationId?: string;
  /** Further request headers (Idempotency-Key). */
  headers?: Record<string, string>;
}

/**
 * Real parts: a fresh PostgreSQL database and RabbitMQ vhost, and the payments service itself
 * started in-process and called over HTTP, as the gateway calls it.
 */
export interface PaymentsHarness {
  env: NodeJS.ProcessEnv;
  databaseUrl: string;
  amqpUrl: string;
  service: RunningService;
  /** A direct connection to the service's database, for checking what was (not) written. */
  db: Db;
  request(method: string, path: string, options?: RequestOptions): Promise<HttpResult>;
  /** A tenant payments knows (KES, UGX, KWD), as its tenant.created event would have recorded it: the operator's fee routes refuse others. */
  newTenant(): Promise<string>;
  /** Stops the service and starts it again on the same database and vhost, as a redeploy or a crash would; later requests go to the new one. */
  restart(env?: NodeJS.ProcessEnv): Promise<RunningService>;
  close(): Promise<void>;
}

export function internalToken(claims: Partial<Omit<InternalClaims, 'exp'>> = {}): string {
  return signInternalToken(INTERNAL_SECRET, {
    surface: 'system',
    tenantId: null,
    environment: null,
    keyId: null,
    scopes: [],
    actor: null,
    ...claims,
  });
}

/** A tenant key's token, as the gateway signs it after authentication and the scope check. */
export function tenantToken(
  tenantId: string,
  options: { environment?: 'test' | 'live'; scopes?: string[]; keyId?: string; actor?: { type: string; id: string } | null } = {},
): string {
  return internalToken({
    surface: 'tenant',
    authMode: 'secret',
    tenantId,
    environment: options.environment ?? 'live',
    keyId: options.keyId ?? 'ak_payments_tests',
    scopes: options.scopes ?? ['tenant:manage'],
    actor: options.actor ?? null,
  });
}

/** A well-formed tenant id no other test uses. */
export function newTenantId(): string {
  return `tn_${randomUUID().replace(/-/g, '').slice(0, 24).toUpperCase()}`;
}

/** The services that reach PostgreSQL through a proxy a test cuts to stage an outage; the harness' own connections never do. */
export interface HarnessOptions {
  databaseProxies?: Partial<Record<'ledger' | 'payments' | 'treasury', TcpProxy>>;
}

function reachedBy(options: HarnessOptions, service: keyof NonNullable<HarnessOptions['databaseProxies']>, databaseUrl: string): string {
  return options.databaseProxies?.[service]?.urlThrough(databaseUrl) ?? databaseUrl;
}

export async function startPaymentsHarness(env: NodeJS.ProcessEnv = {}, options: HarnessOptions = {}): Promise<PaymentsHarness> {
  const databaseUrl = await createTestDatabase('payments', { migratedFor: 'payments' });
  const amqpUrl = await createTestVhost('payments');
  const fullEnv: NodeJS.ProcessEnv = {
    ...process.env,
    PAYMENTS_DATABASE_URL: reachedBy(options, 'payments', databaseUrl),
    AMQP_URL: amqpUrl,
    PAYMENTS_PORT: '0',
    INTERNAL_TOKEN_SECRET: INTERNAL_SECRET,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    // A round falling mid-test would add ledger calls the test does not expect: the tests of the schedule turn it on.
    PAYMENTS_RECONCILIATION_INTERVAL_MS: '0',
    ...env,
  };
  let service = await start(fullEnv);
  const db = createDb(databaseUrl, { poolMax: 4 });
  return {
    env: fullEnv,
    databaseUrl,
    amqpUrl,
    service,
    db,
    async newTenant() {
      const tenantId = newTenantId();
      await upsertTenantConfig(
        db,
        { tenantId, defaultCurrency: 'KES', allowedCurrencies: ['KES', 'UGX', 'KWD'], maxTransactionAmount: '1000000' },
        null,
      );
      return tenantId;
    },
    async request(method, path, options = {}) {
      const headers: Record<string, string> = { ...options.headers };
      const token = options.token === undefined ? internalToken() : options.token;
      if (token !== null) headers['x-internal-token'] = token;
      if (options.correlationId) headers['x-correlation-id'] = options.correlationId;
      const body = options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
      if (body !== undefined) headers['content-type'] = 'application/json';
      const response = await fetch(`http://127.0.0.1:${service.port}${path}`, { method, headers, body });
      const text = await response.text();
      return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined, text };
    },
    async restart(env = {}) {
      await service.close();
      service = await start({ ...fullEnv, ...env });
      return service;
    },
    async close() {
      await service.close();
      await db.destroy();
    },
  };
}

// ---- Wallets: payments with the real ledger beside it ----

/**
 * Payments and the real ledger, in-process on one fresh vhost and each on its own fresh
 * database, as wallets need them: balances and statements are read from the ledger over HTTP,
 * status changes go to it over RabbitMQ. The ledger listens on a fixed port so it can be
 * stopped (to see payments answer 503) and started again.
 */
export interface LedgerBackedHarness extends PaymentsHarness {
  ledger: {
    db: Db;
    /** Sends commands straight to the ledger, as a test stands in for a money movement. */
    commands: LedgerCommandClient;
    stop(): Promise<void>;
    restart(): Promise<void>;
  };
  /** Publishes `tenant.created.v1` (or `tenant.updated.v1`) as identity would, and waits until payments recorded it. */
  publishTenant(
    tenantId: string,
    config: { allowedCurrencies: string[]; defaultCurrency?: string; maxTransactionAmount?: string },
    options?: { type?: 'tenant.created.v1' | 'tenant.updated.v1'; occurredAt?: string; wait?: boolean },
  ): Promise<void>;
  /** Treasury beside them when asked for (`{treasury: true}`): reconciliation reads its records. */
  treasury: { url: string; db: Db } | null;
  /** Starts collecting the audit records published to the audit exchange from now on. */
  watchAuditRecords(): Promise<{ received(): Promise<any[]> }>;
}

export async function startLedgerBackedHarness(
  env: NodeJS.ProcessEnv = {},
  options: { treasury?: boolean; treasuryEnv?: NodeJS.ProcessEnv } & HarnessOptions = {},
): Promise<LedgerBackedHarness> {
  const amqpUrl = await createTestVhost('payments_wallets');
  const ledgerDatabaseUrl = await createTestDatabase('payments_ledger', { migratedFor: 'ledger' });
  const ledgerPort = await freePort();
  const ledgerEnv: NodeJS.ProcessEnv = {
    ...process.env,
    LEDGER_DATABASE_URL: reachedBy(options, 'ledger', ledgerDatabaseUrl),
    AMQP_URL: amqpUrl,
    LEDGER_PORT: String(ledgerPort),
    INTERNAL_TOKEN_SECRET: INTERNAL_SECRET,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    // The reconciliation tests read what a check asked for covers: no background round moves it first.
    LEDGER_RECONCILIATION_FOLLOW_INTERVAL_MS: '0',
  };
  let ledger: RunningService | null = await startLedger(ledgerEnv);
  // Reconciliation reads treasury's records (float deposits, withdrawals) too; the other tests
  // leave it out (its queues cost the broker on every test file).
  const treasuryDatabaseUrl = options.treasury ? await createTestDatabase('payments_treasury', { migratedFor: 'treasury' }) : null;
  const treasury =
    treasuryDatabaseUrl === null
      ? null
      : await startTreasury({
          ...process.env,
          TREASURY_DATABASE_URL: reachedBy(options, 'treasury', treasuryDatabaseUrl),
          AMQP_URL: amqpUrl,
          TREASURY_PORT: '0',
          LEDGER_URL: `http://127.0.0.1:${ledgerPort}`,
          INTERNAL_TOKEN_SECRET: INTERNAL_SECRET,
          LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
          ...options.treasuryEnv,
        });
  // Nothing listens there without treasury: a reconciliation then answers 503, never a guess.
  const treasuryUrl = treasury ? `http://127.0.0.1:${treasury.port}` : 'http://127.0.0.1:9';
  const payments = await startPaymentsHarness(
    { AMQP_URL: amqpUrl, LEDGER_URL: `http://127.0.0.1:${ledgerPort}`, TREASURY_URL: treasuryUrl, ...env },
    options,
  );
  const ledgerDb = createDb(ledgerDatabaseUrl, { poolMax: 2 });
  const treasuryDb = treasuryDatabaseUrl === null ? null : createDb(treasuryDatabaseUrl, { poolMax: 2 });
  const commands = await LedgerCommandClient.connect(amqpUrl, 'payments-tests');
  const connection = await amqp.connect(amqpUrl);
  const channel = await connection.createConfirmChannel();
  return {
    ...payments,
    // The vhost payments was started on (its own harness made another, unused).
    amqpUrl,
    ledger: {
      db: ledgerDb,
      commands,
      async stop() {
        await ledger?.close();
        ledger = null;
      },
      async restart() {
        if (!ledger) ledger = await startLedger(ledgerEnv);
      },
    },
    treasury: treasuryDb === null ? null : { url: treasuryUrl, db: treasuryDb },
    async publishTenant(tenantId, config, options = {}) {
      const type = options.type ?? 'tenant.created.v1';
      const event = {
        type,
        messageId: `msg_${randomUUID()}`,
        tenantId,
        name: tenantId,
        slug: tenantId.toLowerCase().replace(/_/g, '-'),
        config: {
          defaultCurrency: config.defaultCurrency ?? config.allowedCurrencies[0],
          allowedCurrencies: config.allowedCurrencies,
          maxTransactionAmount: config.maxTransactionAmount ?? '1000000',
        },
        occurredAt: options.occurredAt ?? new Date().toISOString(),
      };
      const names = TOPOLOGY.identityEvents;
      channel.publish(
        names.exchange,
        type === 'tenant.created.v1' ? names.tenantCreatedRoutingKey : names.tenantUpdatedRoutingKey,
        Buffer.from(JSON.stringify(event)),
        { messageId: event.messageId, type, persistent: true },
      );
      await channel.waitForConfirms();
      if (options.wait === false) return;
      // The ledger takes the same event (it provisions the tenant's accounts): waiting for it too
      // means no test stops the ledger while it is still handling one.
      for (const [service, db] of [
        ['payments', payments.db],
        ['ledger', ledgerDb],
      ] as const) {
        await waitFor(async () => ((await db('inbox').where({ message_id: event.messageId }).first()) ? true : undefined), {
          what: `${service} to record ${event.messageId}`,
        });
      }
    },
    async watchAuditRecords() {
      const { queue } = await channel.assertQueue('', { exclusive: true });
      await channel.bindQueue(queue, TOPOLOGY.auditRecords.exchange, TOPOLOGY.auditRecords.routingKey);
      const seen: any[] = [];
      return {
        async received() {
          for (let message = await channel.get(queue, { noAck: true }); message; message = await channel.get(queue, { noAck: true })) {
            seen.push(JSON.parse(message.content.toString('utf8')));
          }
          return [...seen];
        },
      };
    },
    async close() {
      await connection.close().catch(() => undefined);
      await commands.close();
      await payments.close();
      await treasury?.close();
      await treasuryDb?.destroy();
      await ledger?.close();
      await ledgerDb.destroy();
    },
  };
}

/** What a test's ledger commands need of a wallet (a wallet as the API shows it will do). */
export interface WalletRef {
  id: string;
  tenantId: string;
  environment: 'test' | 'live';
  ownerId: string;
  currencyCode: string;
}

function walletLine(wallet: WalletRef, direction: 'DR' | 'CR', amount: string): PostingLine {
  return { accountName: `wallet:${wallet.ownerId}`, walletId: wallet.id, direction, amount, currencyCode: wallet.currencyCode };
}

/** Money in from mobile money, as the deposit feature will post it: DR momo-float, CR wallet. */
export function depositCommand(wallet: WalletRef, amount: string): LedgerPostV1 {
  return {
    type: 'ledger.post.v1',
    commandId: `dep-${randomUUID()}`,
    tenantId: wallet.tenantId,
    environment: wallet.environment,
    kind: 'momo_deposit',
    reference: { type: 'deposit', id: `dep_${randomUUID().slice(0, 8)}` },
    lines: [
      { accountName: 'momo-float:mtn', direction: 'DR', amount, currencyCode: wallet.currencyCode },
      walletLine(wallet, 'CR', amount),
    ],
  };
}

/** A send from one wallet to another: DR sender, CR receiver. */
export function transferCommand(from: WalletRef, to: WalletRef, amount: string): LedgerPostV1 {
  return {
    type: 'ledger.post.v1',
    commandId: `tx-${randomUUID()}`,
    tenantId: from.tenantId,
    environment: from.environment,
    kind: 'transfer',
    reference: { type: 'transfer', id: `tx_${randomUUID().slice(0, 8)}` },
    lines: [walletLine(from, 'DR', amount), walletLine(to, 'CR', amount)],
  };
}

/** A sample's value on a service's /metrics (its name and labels, in any order), or undefined when it is not there. */
export async function metricValue(port: number, name: string, labels: Record<string, string> = {}): Promise<number | undefined> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const wanted = Object.entries(labels).map(([label, value]) => `${label}="${value}"`);
  const line = text
    .split('\n')
    .find((each) => (each.startsWith(`${name}{`) || each.startsWith(`${name} `)) && wanted.every((pair) => each.includes(pair)));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}
