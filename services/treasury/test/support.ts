import { randomUUID } from 'node:crypto';
import amqp from 'amqplib';
import { TOPOLOGY } from '@wallet/contracts';
import { createDb, type Db, signInternalToken } from '@wallet/kit';
import { createTestDatabase, createTestVhost, freePort, waitFor } from '@wallet/kit/testing';
import { start as startLedger } from '../../ledger/src/main';
import { type RunningService, start } from '../src/main';

export const INTERNAL_SECRET = 'treasury-tests-internal-token-secret-0123456789';

export interface HttpResult {
  status: number;
  body: any;
}

export interface Caller {
  tenantId: string;
  environment: 'test' | 'live';
}

/** A tenant key's token, as the gateway signs it after authentication and the scope check. */
export function tenantToken(caller: Caller, scopes: string[] = ['tenant:manage'], actorId?: string): string {
  const actor = actorId === undefined ? null : { type: 'member' as const, id: actorId };
  return signInternalToken(INTERNAL_SECRET, {
    surface: 'tenant',
    authMode: 'secret',
    tenantId: caller.tenantId,
    environment: caller.environment,
    keyId: 'ak_treasury_tests',
    scopes,
    actor,
  });
}

/** The platform's token for treasury's internal routes (check 3 of its own records), as payments signs it. */
export function systemToken(): string {
  return signInternalToken(INTERNAL_SECRET, { surface: 'system', tenantId: null, environment: null, keyId: null, scopes: [], actor: null });
}

/**
 * Real parts: treasury and the ledger in-process, each on its own fresh PostgreSQL database,
 * sharing one fresh RabbitMQ vhost. Tenants arrive as identity's events, which the ledger
 * provisions operating accounts from.
 */
export interface TreasuryHarness {
  db: Db;
  ledgerDb: Db;
  ledgerUrl: string;
  /** Treasury's own address and the test vhost, for tests that call or publish directly. */
  url: string;
  amqpUrl: string;
  /** What treasury was started with: another instance started with it shares its database and vhost. */
  serviceEnv: NodeJS.ProcessEnv;
  /** Publishes a tenant's creation (a new id unless one is given) and waits for the ledger to provision it and treasury to record it. */
  newCaller(currencies?: string[], tenantId?: string, config?: { maxTransactionAmount?: string }): Promise<Caller>;
  request(
    caller: Caller,
    method: string,
    path: string,
    options?: { body?: unknown; rawBody?: string; key?: string | null; scopes?: string[]; actor?: string },
  ): Promise<HttpResult>;
  /**
   * Runs `action` with the ledger stopped (its commands wait in their queue), then starts it
   * again on the same port and database: a request made meanwhile answers 202 pending however
   * fast the machine, and only the ledger's event can finish it.
   */
  whileLedgerStopped<T>(action: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export async function startTreasuryHarness(env: NodeJS.ProcessEnv = {}): Promise<TreasuryHarness> {
  const amqpUrl = await createTestVhost('treasury');
  const ledgerDatabaseUrl = await createTestDatabase('treasury_ledger', { migratedFor: 'ledger' });
  const databaseUrl = await createTestDatabase('treasury', { migratedFor: 'treasury' });
  const ledgerPort = await freePort();
  const common = {
    ...process.env,
    AMQP_URL: amqpUrl,
    INTERNAL_TOKEN_SECRET: INTERNAL_SECRET,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
  };
  // The reconciliation tests read what a check asked for covers: no background round moves it first.
  const ledgerEnv = {
    ...common,
    LEDGER_DATABASE_URL: ledgerDatabaseUrl,
    LEDGER_PORT: String(ledgerPort),
    LEDGER_RECONCILIATION_FOLLOW_INTERVAL_MS: '0',
  };
  let ledger: RunningService | null = await startLedger(ledgerEnv);
  const ledgerUrl = `http://127.0.0.1:${ledgerPort}`;
  const serviceEnv = { ...common, TREASURY_DATABASE_URL: databaseUrl, TREASURY_PORT: '0', LEDGER_URL: ledgerUrl, ...env };
  const service = await start(serviceEnv);
  const db = createDb(databaseUrl, { poolMax: 2 });
  const ledgerDb = createDb(ledgerDatabaseUrl, { poolMax: 2 });
  const connection = await amqp.connect(amqpUrl);
  const channel = await connection.createConfirmChannel();
  return {
    db,
    ledgerDb,
    ledgerUrl,
    url: `http://127.0.0.1:${service.port}`,
    amqpUrl,
    serviceEnv,
    async newCaller(
      currencies = ['USD', 'UGX'],
      tenantId = `tn_${randomUUID().replace(/-/g, '').slice(0, 24).toUpperCase()}`,
      config = {},
    ) {
      const event = {
        type: 'tenant.created.v1',
        messageId: `msg_${randomUUID()}`,
        tenantId,
        name: tenantId,
        slug: tenantId.toLowerCase().replace(/_/g, '-'),
        config: {
          defaultCurrency: currencies[0],
          allowedCurrencies: currencies,
          maxTransactionAmount: config.maxTransactionAmount ?? '1000000',
        },
        occurredAt: new Date().toISOString(),
      };
      const names = TOPOLOGY.identityEvents;
      channel.publish(names.exchange, names.tenantCreatedRoutingKey, Buffer.from(JSON.stringify(event)), {
        messageId: event.messageId,
        type: event.type,
        persistent: true,
      });
      await channel.waitForConfirms();
      for (const [service, inboxOf] of [
        ['the ledger', ledgerDb],
        ['treasury', db],
      ] as const) {
        await waitFor(async () => ((await inboxOf('inbox').where({ message_id: event.messageId }).first()) ? true : undefined), {
          what: `${service} to record ${tenantId}`,
        });
      }
      return { tenantId, environment: 'live' };
    },
    async request(caller, method, path, options = {}) {
      const headers: Record<string, string> = { 'x-internal-token': tenantToken(caller, options.scopes, options.actor) };
      if (options.key !== null && method === 'POST') headers['idempotency-key'] = options.key ?? `idem-${randomUUID()}`;
      const body = options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
      if (body !== undefined) headers['content-type'] = 'application/json';
      const response = await fetch(`http://127.0.0.1:${service.port}${path}`, { method, headers, body });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : undefined };
    },
    async whileLedgerStopped(action) {
      await ledger?.close();
      ledger = null;
      try {
        return await action();
      } finally {
        ledger = await startLedger(ledgerEnv);
      }
    },
    async close() {
      await connection.close().catch(() => undefined);
      await service.close();
      await ledger?.close();
      await db.destroy();
      await ledgerDb.destroy();
    },
  };
}
