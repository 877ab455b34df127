import type { ConfirmChannel } from 'amqplib';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerEnvelope } from 'smtp-server';
import { type AuditRecordV1, errorBodySchema, TOPOLOGY } from '@wallet/contracts';
import { createDb, type Db, type InternalClaims, signInternalToken } from '@wallet/kit';
import { createTestDatabase, createTestVhost } from '@wallet/kit/testing';
import { type RunningService, start } from '../src/main';

export const INTERNAL_SECRET = 'identity-tests-internal-token-secret-0123456789';
/** `<keyId>:<base64 of 32 bytes>`, fixed so a restarted service opens what an earlier start sealed. */
export const TEST_MASTER_KEY = `test-master-1:${Buffer.from('identity-tests-master-key-32byte').toString('base64')}`;

export interface HttpResult {
  status: number;
  headers: Headers;
  body: any;
}

/** An error answer: its status and code, and its error body. */
export function expectErrorBody(result: HttpResult, status: number, code: string) {
  expect(result.status).toBe(status);
  const parsed = errorBodySchema.parse(result.body);
  expect(parsed.error.code).toBe(code);
  return parsed.error;
}

export interface RequestOptions {
  /** Sent as JSON.stringify(body). */
  body?: unknown;
  /** Sent exactly as written, for number tokens JSON.stringify cannot produce (1000000.50). */
  rawBody?: string;
  /** null sends no internal token at all; a string is sent as is. */
  token?: string | null;
  correlationId?: string;
}

/**
 * Real parts: a fresh PostgreSQL database and RabbitMQ vhost, and the identity service itself
 * started in-process and called over HTTP, as the gateway calls it.
 */
export interface IdentityHarness {
  env: NodeJS.ProcessEnv;
  databaseUrl: string;
  amqpUrl: string;
  service: RunningService;
  /** A direct connection to the service's database, for checking what was (not) written. */
  db: Db;
  request(method: string, path: string, options?: RequestOptions): Promise<HttpResult>;
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

export async function startIdentityHarness(env: NodeJS.ProcessEnv = {}): Promise<IdentityHarness> {
  const databaseUrl = await createTestDatabase('identity', { migratedFor: 'identity' });
  const amqpUrl = await createTestVhost('identity');
  const fullEnv: NodeJS.ProcessEnv = {
    ...process.env,
    IDENTITY_DATABASE_URL: databaseUrl,
    AMQP_URL: amqpUrl,
    IDENTITY_PORT: '0',
    INTERNAL_TOKEN_SECRET: INTERNAL_SECRET,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    SMTP_URL: '',
    DASHBOARD_URL: '',
    SECRETS_ENCRYPTION_KEY: TEST_MASTER_KEY,
    ...env,
  };
  const service = await start(fullEnv);
  const db = createDb(databaseUrl, { poolMax: 2 });
  return {
    env: fullEnv,
    databaseUrl,
    amqpUrl,
    service,
    db,
    async request(method, path, options = {}) {
      const headers: Record<string, string> = {};
      const token = options.token === undefined ? internalToken() : options.token;
      if (token !== null) headers['x-internal-token'] = token;
      if (options.correlationId) headers['x-correlation-id'] = options.correlationId;
      const body = options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
      if (body !== undefined) headers['content-type'] = 'application/json';
      const response = await fetch(`http://127.0.0.1:${service.port}${path}`, { method, headers, body });
      const text = await response.text();
      return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
    },
    async close() {
      await service.close();
      await db.destroy();
    },
  };
}

let sequence = 0;
/** A slug no other test of the file uses. */
export function uniqueSlug(label = 'org'): string {
  sequence += 1;
  return `${label}-${sequence}-${randomUUID().slice(0, 8)}`;
}

export function tenantBody(overrides: { name?: string; slug?: string; config?: Record<string, unknown> } = {}) {
  return {
    name: overrides.name ?? 'Acme Payments',
    slug: overrides.slug ?? uniqueSlug('acme'),
    config: { defaultCurrency: 'USD', allowedCurrencies: ['USD', 'KES'], maxTransactionAmount: '5000.00', ...overrides.config },
  };
}

export async function countRows(db: Db, table: string, where: Record<string, unknown> = {}): Promise<number> {
  const rows = await db(table).where(where).count<{ count: string }[]>('* as count');
  return Number(rows[0]?.count ?? 0);
}

export interface ReceivedEmail {
  envelope: SMTPServerEnvelope;
  /** The message with quoted-printable soft breaks and escapes undone, so links read whole. */
  text: string;
}

/**
 * An SMTP server in this process that keeps what it receives, for `SMTP_URL`. It refuses
 * recipients at bounce.test: how a failed send is produced.
 */
export interface SmtpInbox {
  url: string;
  received: ReceivedEmail[];
  /** The first email to this address. */
  mailTo(address: string): ReceivedEmail | undefined;
  close(): Promise<void>;
}

function decodeQuotedPrintable(raw: string): string {
  return raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_match, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

export async function startSmtpInbox(): Promise<SmtpInbox> {
  const received: ReceivedEmail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(address, _session, callback) {
      if (address.address.endsWith('@bounce.test')) return callback(Object.assign(new Error('No such mailbox'), { responseCode: 550 }));
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        received.push({ envelope: session.envelope, text: decodeQuotedPrintable(Buffer.concat(chunks).toString('utf8')) });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    mailTo: (address) => received.find((email) => email.envelope.rcptTo.some((recipient) => recipient.address === address)),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Publishes an audit record as payments and treasury do, once the broker confirmed it. */
export async function publishAuditRecord(channel: ConfirmChannel, record: AuditRecordV1): Promise<void> {
  channel.publish(TOPOLOGY.auditRecords.exchange, TOPOLOGY.auditRecords.routingKey, Buffer.from(JSON.stringify(record)), {
    persistent: true,
    messageId: record.messageId,
    type: record.type,
  });
  await channel.waitForConfirms();
}
