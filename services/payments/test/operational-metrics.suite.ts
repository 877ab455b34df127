import { randomUUID } from 'node:crypto';
import { walletSchema } from '@wallet/contracts';
import { waitFor } from '@wallet/kit/testing';
import {
  depositCommand,
  type HttpResult,
  type LedgerBackedHarness,
  metricValue,
  newTenantId,
  startLedgerBackedHarness,
  tenantToken,
  type WalletRef,
} from './support';

/**
 * Real: PostgreSQL, RabbitMQ, payments and the ledger in-process; each service's /metrics is
 * scraped over HTTP on its own (internal) listener, as Prometheus would.
 */
let harness: LedgerBackedHarness;
const REPLY_TIMEOUT_MS = 1000;

beforeAll(async () => {
  harness = await startLedgerBackedHarness({ PAYMENTS_TRANSFER_REPLY_TIMEOUT_MS: String(REPLY_TIMEOUT_MS) });
});

afterAll(async () => {
  await harness?.close();
});

const paymentsPort = () => harness.service.port;
const ledgerPort = () => Number(new URL(harness.env.LEDGER_URL as string).port);

interface Caller {
  tenantId: string;
}

async function newCaller(): Promise<Caller> {
  const tenantId = newTenantId();
  await harness.publishTenant(tenantId, { allowedCurrencies: ['USD'] });
  return { tenantId };
}

function call(caller: Caller, method: string, path: string, body?: unknown): Promise<HttpResult> {
  const headers: Record<string, string> = method === 'POST' ? { 'Idempotency-Key': `idem-${randomUUID()}` } : {};
  return harness.request(method, path, { token: tenantToken(caller.tenantId), headers, ...(body !== undefined ? { body } : {}) });
}

async function fundedPair(caller: Caller): Promise<[WalletRef, WalletRef]> {
  const wallets: WalletRef[] = [];
  for (let index = 0; index < 2; index += 1) {
    const created = await call(caller, 'POST', '/v1/wallets', {
      ownerType: 'user',
      ownerId: `user-${randomUUID().slice(0, 8)}`,
      currencyCode: 'USD',
    });
    expect(created.status).toBe(201);
    wallets.push(walletSchema.parse(created.body));
  }
  const [sender, receiver] = wallets as [WalletRef, WalletRef];
  expect((await harness.ledger.commands.request(depositCommand(sender, '50.00'))).status).toBe('posted');
  return [sender, receiver];
}

describe("the ledger's /metrics", () => {
  it('reports its command queue with its consumers and its dead-letter queue, and its outbox', async () => {
    expect(
      await metricValue(ledgerPort(), 'rabbitmq_queue_consumers', { queue: 'ledger.commands.p00', dead_letter: 'false' }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      await metricValue(ledgerPort(), 'rabbitmq_queue_messages_ready', { queue: 'ledger.commands.p00', dead_letter: 'false' }),
    ).toBeGreaterThanOrEqual(0);
    expect(await metricValue(ledgerPort(), 'rabbitmq_queue_messages_ready', { queue: 'ledger.commands.dlq', dead_letter: 'true' })).toBe(0);
    expect(await metricValue(ledgerPort(), 'rabbitmq_queue_consumers', { queue: 'ledger.commands.dlq', dead_letter: 'true' })).toBe(0);
    expect(await metricValue(ledgerPort(), 'amqp_messages_redelivered_total', { queue: 'ledger.commands.p00' })).toBe(0);
    expect(await metricValue(ledgerPort(), 'outbox_messages', { service: 'ledger' })).toBeGreaterThanOrEqual(0);
    expect(await metricValue(ledgerPort(), 'outbox_oldest_message_age_seconds', { service: 'ledger' })).toBeGreaterThanOrEqual(0);
    const text = await (await fetch(`http://127.0.0.1:${ledgerPort()}/metrics`)).text();
    // Replaced by the queue gauges; without the management API there are no unacknowledged counts.
    expect(text).not.toContain('ledger_dead_letter_queue_depth');
    expect(text).not.toMatch(/^rabbitmq_queue_messages_unacknowledged\{/m);
  });
});

describe("payments' /metrics", () => {
  it('reports its events queues, its outbox and its idempotency keys in flight', async () => {
    expect(
      await metricValue(paymentsPort(), 'rabbitmq_queue_consumers', { queue: 'payments.ledger-events', dead_letter: 'false' }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      await metricValue(paymentsPort(), 'rabbitmq_queue_messages_ready', { queue: 'payments.ledger-events.dlq', dead_letter: 'true' }),
    ).toBe(0);
    expect(
      await metricValue(paymentsPort(), 'rabbitmq_queue_consumers', { queue: 'payments.identity-events', dead_letter: 'false' }),
    ).toBeGreaterThanOrEqual(1);
    expect(await metricValue(paymentsPort(), 'outbox_messages', { service: 'payments' })).toBeGreaterThanOrEqual(0);
    expect(await metricValue(paymentsPort(), 'outbox_oldest_message_age_seconds', { service: 'payments' })).toBeGreaterThanOrEqual(0);
    expect(await metricValue(paymentsPort(), 'idempotency_keys_in_flight', { service: 'payments' })).toBe(0);
    for (const recordType of ['transfer', 'deposit', 'payout']) {
      expect(await metricValue(paymentsPort(), 'pending_records_oldest_age_seconds', { record_type: recordType })).toBe(0);
      expect(await metricValue(paymentsPort(), 'ledger_replies_timed_out_total', { record_type: recordType })).toBeGreaterThanOrEqual(0);
    }
  });

  it('counts a transfer answered 202 while the ledger is stopped, and reports it pending until the ledger finished it', async () => {
    const caller = await newCaller();
    const [sender, receiver] = await fundedPair(caller);
    const timedOutBefore = (await metricValue(paymentsPort(), 'ledger_replies_timed_out_total', { record_type: 'transfer' })) as number;

    await harness.ledger.stop();
    let pending: HttpResult;
    try {
      pending = await call(caller, 'POST', '/v1/transfers', {
        fromWalletId: sender.id,
        toWalletId: receiver.id,
        amount: '5.00',
        currencyCode: 'USD',
      });
      expect(pending.status).toBe(202);
      expect(await metricValue(paymentsPort(), 'ledger_replies_timed_out_total', { record_type: 'transfer' })).toBe(timedOutBefore + 1);
      // Waiting since its command was sent, the reply wait included.
      expect(await metricValue(paymentsPort(), 'pending_records_oldest_age_seconds', { record_type: 'transfer' })).toBeGreaterThanOrEqual(
        (REPLY_TIMEOUT_MS - 50) / 1000,
      );
      expect(await metricValue(paymentsPort(), 'pending_records_oldest_age_seconds', { record_type: 'payout' })).toBe(0);
    } finally {
      await harness.ledger.restart();
    }

    await waitFor(
      async () => ((await call(caller, 'GET', `/v1/transfers/${pending.body.id}`)).body.status === 'completed' ? true : undefined),
      { what: 'the ledger event to complete the transfer' },
    );
    expect(await metricValue(paymentsPort(), 'pending_records_oldest_age_seconds', { record_type: 'transfer' })).toBe(0);
    // The scrape that found it finished let it go.
    expect(await harness.db('awaiting_ledger').where({ record_id: pending.body.id })).toEqual([]);
  });

  it('does not count a transfer the ledger answered in time', async () => {
    const caller = await newCaller();
    const [sender, receiver] = await fundedPair(caller);
    const timedOutBefore = await metricValue(paymentsPort(), 'ledger_replies_timed_out_total', { record_type: 'transfer' });
    const sent = await call(caller, 'POST', '/v1/transfers', {
      fromWalletId: sender.id,
      toWalletId: receiver.id,
      amount: '1.00',
      currencyCode: 'USD',
    });
    expect(sent.status).toBe(201);
    expect(await metricValue(paymentsPort(), 'ledger_replies_timed_out_total', { record_type: 'transfer' })).toBe(timedOutBefore);
    expect(await harness.db('awaiting_ledger').where({ record_id: sent.body.id })).toEqual([]);
  });
});
