import { randomUUID } from 'node:crypto';
import { depositSchema, momoWebhookSignature, walletSchema } from '@wallet/contracts';
import { waitFor } from '@wallet/kit/testing';
import { publishedDefault } from './fees-support';
import { type HttpResult, internalToken, type LedgerBackedHarness, newTenantId, startLedgerBackedHarness, tenantToken } from './support';
import { type IdentityPeer, startIdentity } from './deposits-support';

/**
 * Real: PostgreSQL, RabbitMQ, payments over HTTP, the ledger beside it, and identity serving the
 * tenant's mobile money providers and their webhook secrets.
 */
let harness: LedgerBackedHarness;
let identity: IdentityPeer;

beforeAll(async () => {
  identity = await startIdentity();
  harness = await startLedgerBackedHarness({
    IDENTITY_URL: identity.url,
    PAYMENTS_TENANT_WAIT_MS: '1000',
    PAYMENTS_DEPOSIT_REPLY_WAIT_MS: '3000',
  });
});

afterAll(async () => {
  await harness?.close();
  await identity?.close();
});

interface Tenant {
  tenantId: string;
  providerCode: string;
  secret: string;
}

async function newTenant(options: { maxTransactionAmount?: string; allowedCurrencies?: string[] } = {}): Promise<Tenant> {
  const config = {
    allowedCurrencies: options.allowedCurrencies ?? ['USD', 'KES', 'UGX'],
    maxTransactionAmount: options.maxTransactionAmount ?? '1000',
  };
  const tenantId = await identity.createTenant(config);
  await harness.publishTenant(tenantId, config);
  const provider = await identity.createProvider(tenantId, 'mtn');
  return { tenantId, providerCode: 'mtn', secret: provider.webhookSecret };
}

async function createWallet(tenantId: string, currencyCode = 'USD', environment: 'test' | 'live' = 'live') {
  const created = await harness.request('POST', '/v1/wallets', {
    token: tenantToken(tenantId, { environment }),
    body: { ownerType: 'user', ownerId: `user-${randomUUID().slice(0, 8)}`, currencyCode },
  });
  expect(created.status).toBe(201);
  return walletSchema.parse(created.body);
}

/** What the gateway sends with a public route: no tenant, no scopes. */
const publicToken = () => internalToken({ surface: 'public', authMode: 'none' });

interface Delivery {
  transactionId?: string;
  walletId: string;
  /** The amount's JSON token, exactly as sent. */
  amount: string;
  currencyCode?: string;
  phoneNumber?: string;
  timestamp?: string;
  providerCode?: string;
  /** Signs with this secret (default the tenant's); `signature` overrides. */
  secret?: string;
  signature?: string;
  /** The amount text the signature covers, when it differs from the token sent. */
  signedAmount?: string;
}

function webhookBody(tenant: Tenant, delivery: Delivery): { text: string; transactionId: string } {
  const transactionId = delivery.transactionId ?? `mtn-${randomUUID()}`;
  const currencyCode = delivery.currencyCode ?? 'USD';
  const phoneNumber = delivery.phoneNumber ?? '+256700000001';
  const timestamp = delivery.timestamp ?? new Date().toISOString();
  const signature =
    delivery.signature ??
    momoWebhookSignature(delivery.secret ?? tenant.secret, {
      transactionId,
      walletId: delivery.walletId,
      amountText: delivery.signedAmount ?? delivery.amount,
      currencyCode,
      phoneNumber,
      timestamp,
    });
  const fields = [
    `"transactionId":${JSON.stringify(transactionId)}`,
    `"phoneNumber":${JSON.stringify(phoneNumber)}`,
    `"amount":${delivery.amount}`,
    `"currencyCode":${JSON.stringify(currencyCode)}`,
    `"walletId":${JSON.stringify(delivery.walletId)}`,
    `"signature":${JSON.stringify(signature)}`,
    `"timestamp":${JSON.stringify(timestamp)}`,
    ...(delivery.providerCode ? [`"providerCode":${JSON.stringify(delivery.providerCode)}`] : []),
  ];
  return { text: `{${fields.join(',')}}`, transactionId };
}

function deliver(tenant: Tenant, delivery: Delivery): Promise<HttpResult & { transactionId: string }> {
  const { text, transactionId } = webhookBody(tenant, delivery);
  return harness
    .request('POST', '/v1/deposits/momo-webhook', { token: publicToken(), rawBody: text })
    .then((result) => ({ ...result, transactionId }));
}

function expectError(result: HttpResult, status: number, code: string) {
  expect(`${result.status} ${result.body?.error?.code}`).toBe(`${status} ${code}`);
}

async function entriesOf(depositId: string) {
  return harness.ledger.db('journal_entries').where({ reference_type: 'deposit', reference_id: depositId }).select(['id', 'kind']);
}

async function linesOf(entryId: string) {
  const rows: Array<{ name: string; direction: string; amount: string }> = await harness.ledger
    .db('journal_lines')
    .join('accounts', 'accounts.num', 'journal_lines.account_num')
    .where({ entry_seq: harness.ledger.db('journal_entries').where({ id: entryId }).select('seq') })
    .orderBy('line_no')
    .select(['accounts.name as name', 'journal_lines.direction as direction', 'journal_lines.amount as amount']);
  return rows.map((row) => `${row.direction} ${row.name} ${Number(row.amount).toFixed(2)}`);
}

async function balanceOf(tenantId: string, walletId: string, environment: 'test' | 'live' = 'live'): Promise<string> {
  const read = await harness.request('GET', `/v1/wallets/${walletId}`, { token: tenantToken(tenantId, { environment }) });
  return walletSchema.parse(read.body).balance;
}

describe('POST /v1/deposits/momo-webhook', () => {
  it('credits the wallet on first delivery (201) with the exact ledger lines, fee lines included', async () => {
    const tenant = await newTenant();
    await publishedDefault(harness, tenant.tenantId, [{ transactionType: 'deposit', currencyCode: 'USD', flatFee: '1.00' }], 1000);
    const wallet = await createWallet(tenant.tenantId);
    const first = await deliver(tenant, { walletId: wallet.id, amount: '100.10' });
    expect(first.status).toBe(201);
    const deposit = depositSchema.parse(first.body);
    expect(deposit).toMatchObject({
      walletId: wallet.id,
      amount: '100.10',
      fee: '1.00',
      currencyCode: 'USD',
      source: 'momo',
      status: 'completed',
      externalRef: first.transactionId,
      providerCode: 'mtn',
      rejectionReason: null,
    });
    expect(deposit.id).toMatch(/^dep_/);
    const entries = await waitFor(async () => ((await entriesOf(deposit.id)).length === 1 ? entriesOf(deposit.id) : undefined), {
      what: 'the deposit entry',
    });
    expect(entries[0]?.kind).toBe('momo_deposit');
    expect(await linesOf(entries[0]!.id)).toEqual([
      'DR momo-float:mtn 100.10',
      `CR wallet:${wallet.ownerId} 99.10`,
      'CR revenue:fees 1.00',
      'DR revenue:fees 0.10',
      'CR platform-commission 0.10',
    ]);
    expect(deposit.journalEntryId).toBe(entries[0]!.id);
    expect(await balanceOf(tenant.tenantId, wallet.id)).toBe('99.10');
    const read = await harness.request('GET', `/v1/deposits/${deposit.id}`, { token: tenantToken(tenant.tenantId) });
    expect(read.body).toMatchObject({ id: deposit.id, journalEntryId: entries[0]!.id, status: 'completed' });
  });

  it('answers 202 awaiting the ledger while it has not posted the credit, and reads final once it has', async () => {
    const tenant = await newTenant();
    const wallet = await createWallet(tenant.tenantId);
    await harness.ledger.stop();
    let accepted: HttpResult & { transactionId: string };
    try {
      accepted = await deliver(tenant, { walletId: wallet.id, amount: '40.00' });
      expect(accepted.status).toBe(202);
      expect(depositSchema.parse(accepted.body)).toMatchObject({ status: 'completed', awaitingLedger: true, journalEntryId: null });
      const read = await harness.request('GET', `/v1/deposits/${accepted.body.id}`, { token: tenantToken(tenant.tenantId) });
      expect(read.body).toEqual(accepted.body);
    } finally {
      await harness.ledger.restart();
    }
    const posted = await waitFor(
      async () => {
        const read = depositSchema.parse(
          (await harness.request('GET', `/v1/deposits/${accepted.body.id}`, { token: tenantToken(tenant.tenantId) })).body,
        );
        return read.awaitingLedger ? undefined : read;
      },
      { what: 'the credit to post' },
    );
    expect(posted).toMatchObject({ status: 'completed', journalEntryId: expect.stringMatching(/^je_/) });
    expect(await balanceOf(tenant.tenantId, wallet.id)).toBe('40.00');
  });

  it('answers a repeat with 200 and the same deposit, posting nothing more', async () => {
    const tenant = await newTenant();
    const wallet = await createWallet(tenant.tenantId);
    const transactionId = `mtn-${randomUUID()}`;
    const timestamp = new Date().toISOString();
    const first = await deliver(tenant, { walletId: wallet.id, amount: '25', transactionId, timestamp });
    expect(first.status).toBe(201);
    const again = await deliver(tenant, { walletId: wallet.id, amount: '25', transactionId, timestamp });
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    await waitFor(async () => ((await entriesOf(first.body.id)).length === 1 ? true : undefined), { what: 'the entry' });
    expect(await harness.db('deposits').where({ external_ref: transactionId }).count('* as n')).toEqual([{ n: '1' }]);
    expect(await balanceOf(tenant.tenantId, wallet.id)).toBe('25.00');
  });

  it('keeps test and live apart: one transactionId credits a live and a test wallet of the tenant once each, in either order', async () => {
    const tenant = await newTenant();
    const live = await createWallet(tenant.tenantId, 'USD', 'live');
    const test = await createWallet(tenant.tenantId, 'USD', 'test');
    for (const [first, second] of [
      [live, test],
      [test, live],
    ] as const) {
      const transactionId = `mtn-${randomUUID()}`;
      const timestamp = new Date().toISOString();
      const one = await deliver(tenant, { walletId: first.id, amount: '4', transactionId, timestamp });
      const other = await deliver(tenant, { walletId: second.id, amount: '4', transactionId, timestamp });
      expect([one.status, other.status]).toEqual([201, 201]);
      expect(other.body).toMatchObject({ walletId: second.id, status: 'completed' });
      expect(other.body.id).not.toBe(one.body.id);
      // A repeat in each environment is still that environment's repeat.
      const repeats = await Promise.all(
        [first, second].map((wallet) => deliver(tenant, { walletId: wallet.id, amount: '4', transactionId, timestamp })),
      );
      expect(repeats.map((repeat) => [repeat.status, repeat.body.id])).toEqual([
        [200, one.body.id],
        [200, other.body.id],
      ]);
    }
    for (const wallet of [live, test]) {
      await waitFor(async () => ((await balanceOf(tenant.tenantId, wallet.id, wallet.environment)) === '8.00' ? true : undefined), {
        what: `two credits in ${wallet.environment}`,
      });
    }
  });

  it('credits once under 10 concurrent deliveries of one transaction', async () => {
    const tenant = await newTenant();
    const wallet = await createWallet(tenant.tenantId);
    const transactionId = `mtn-${randomUUID()}`;
    const timestamp = new Date().toISOString();
    const results = await Promise.all(
      Array.from({ length: 10 }, () => deliver(tenant, { walletId: wallet.id, amount: '7.50', transactionId, timestamp })),
    );
    expect(results.map((result) => result.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 201]);
    expect(new Set(results.map((result) => result.body.id)).size).toBe(1);
    await waitFor(async () => ((await balanceOf(tenant.tenantId, wallet.id)) === '7.50' ? true : undefined), { what: 'the credit' });
    const ids = await harness.ledger.db('journal_entries').where({ reference_type: 'deposit', tenant_id: tenant.tenantId }).count('* as n');
    expect(ids).toEqual([{ n: '1' }]);
  });

  it('refuses a forged delivery of a real transactionId (401, rejected record) without blocking the genuine one', async () => {
    const tenant = await newTenant();
    const wallet = await createWallet(tenant.tenantId);
    const transactionId = `mtn-${randomUUID()}`;
    const forged = await deliver(tenant, { walletId: wallet.id, amount: '500', transactionId, secret: 'not-the-secret' });
    expectError(forged, 401, 'INVALID_WEBHOOK_SIGNATURE');
    const rejected = await harness.db('deposits').where({ external_ref: transactionId }).first();
    expect(rejected).toMatchObject({
      status: 'rejected',
      rejection_reason: 'INVALID_WEBHOOK_SIGNATURE',
      journal_entry_id: null,
      command_id: null,
    });
    const genuine = await deliver(tenant, { walletId: wallet.id, amount: '5', transactionId });
    expect(genuine.status).toBe(201);
    expect(genuine.body.status).toBe('completed');
    expect(genuine.body.id).not.toBe(rejected.id);
    const credited = async () => ((await balanceOf(tenant.tenantId, wallet.id)) === '5.00' ? true : undefined);
    await waitFor(credited, { what: 'the genuine credit' });
  });

  it('refuses a timestamp more than 300 s away with 401 STALE_WEBHOOK_TIMESTAMP', async () => {
    const tenant = await newTenant();
    const wallet = await createWallet(tenant.tenantId);
    expectError(
      await deliver(tenant, { walletId: wallet.id, amount: '5', timestamp: new Date(Date.now() - 301_000).toISOString() }),
      401,
      'STALE_WEBHOOK_TIMESTAMP',
    );
    expectError(
      await deliver(tenant, { walletId: wallet.id, amount: '5', timestamp: new Date(Date.now() + 301_000).toISOString() }),
      401,
      'STALE_WEBHOOK_TIMESTAMP',
    );
    expect(
      (await deliver(tenant, { walletId: wallet.id, amount: '5', timestamp: new Date(Date.now() - 290_000).toISOString() })).status,
    ).toBe(201);
  });

  it('answers every unverified delivery alike (an unknown wallet or provider, no providerCode, a bad signature): 401, no ids', async () => {
    const tenant = await newTenant();
    await identity.createProvider(tenant.tenantId, 'airtel');
    const wallet = await createWallet(tenant.tenantId);
    const forged = { ...tenant, secret: 'not-any-providers-secret' };
    const unverified = {
      unknownWallet: await deliver(forged, { walletId: 'wl_NOSUCHWALLET', amount: '5', providerCode: 'mtn' }),
      unknownProvider: await deliver(forged, { walletId: wallet.id, amount: '5', providerCode: 'nosuchprovider' }),
      noProviderCode: await deliver(forged, { walletId: wallet.id, amount: '5' }),
      badSignature: await deliver(forged, { walletId: wallet.id, amount: '5', providerCode: 'mtn' }),
    };
    // Everything but the correlation id, field by field: no answer tells which ids exist.
    const answers = Object.entries(unverified).map(([name, result]) => {
      const { correlationId, ...error } = result.body.error;
      expect(correlationId).toEqual(expect.any(String));
      return [name, { status: result.status, ...error }] as const;
    });
    const expected = { status: 401, code: 'INVALID_WEBHOOK_SIGNATURE', message: 'The webhook signature does not verify' };
    expect(Object.fromEntries(answers)).toEqual(Object.fromEntries(answers.map(([name]) => [name, expected])));
    // The back office still sees the forgery aimed at a known wallet and provider; the others name none to record.
    const recorded = (result: { transactionId: string }) =>
      harness.db('deposits').where({ external_ref: result.transactionId }).select('status', 'provider_code');
    expect(await recorded(unverified.badSignature)).toEqual([{ status: 'rejected', provider_code: 'mtn' }]);
    for (const result of [unverified.unknownWallet, unverified.unknownProvider, unverified.noProviderCode]) {
      expect(await recorded(result)).toEqual([]);
    }

    const genuine = await deliver(tenant, { walletId: wallet.id, amount: '5', providerCode: 'mtn' });
    expect(genuine.status).toBe(201);
    const credited = async () => ((await balanceOf(tenant.tenantId, wallet.id)) === '5.00' ? true : undefined);
    await waitFor(credited, { what: 'the genuine credit' });
  });

  it('refuses amounts over the limit (equal passes) and wrong or disallowed currencies with 422 and a rejected record, posting nothing', async () => {
    const tenant = await newTenant({ maxTransactionAmount: '1000', allowedCurrencies: ['USD', 'KES'] });
    const wallet = await createWallet(tenant.tenantId);
    const over = await deliver(tenant, { walletId: wallet.id, amount: '1000.01' });
    expectError(over, 422, 'AMOUNT_EXCEEDS_LIMIT');
    const mismatch = await deliver(tenant, { walletId: wallet.id, amount: '10', currencyCode: 'KES' });
    expectError(mismatch, 422, 'CURRENCY_MISMATCH');
    const notAllowed = await deliver(tenant, { walletId: wallet.id, amount: '10', currencyCode: 'EUR' });
    expectError(notAllowed, 422, 'CURRENCY_NOT_ALLOWED');
    for (const [result, reason] of [
      [over, 'AMOUNT_EXCEEDS_LIMIT'],
      [mismatch, 'CURRENCY_MISMATCH'],
      [notAllowed, 'CURRENCY_NOT_ALLOWED'],
    ] as const) {
      const row = await harness.db('deposits').where({ external_ref: result.transactionId }).first();
      expect(row).toMatchObject({ status: 'rejected', rejection_reason: reason, command_id: null });
      const listed = await harness.request('GET', `/v1/deposits/${row.id}`, { token: tenantToken(tenant.tenantId) });
      expect(listed.body).toMatchObject({ status: 'rejected', rejectionReason: reason });
    }
    const equal = await deliver(tenant, { walletId: wallet.id, amount: '1000.00' });
    expect(equal.status).toBe(201);
    await waitFor(async () => ((await balanceOf(tenant.tenantId, wallet.id)) === '1000.00' ? true : undefined), {
      what: 'the credit at the limit',
    });
    const entries = await harness.ledger
      .db('journal_entries')
      .where({ reference_type: 'deposit', tenant_id: tenant.tenantId })
      .count('* as n');
    expect(entries).toEqual([{ n: '1' }]);
  });

  it('is exact: three deposits of 0.1 make 0.30; 10.001 USD is 400 INVALID_AMOUNT', async () => {
    const tenant = await newTenant();
    const wallet = await createWallet(tenant.tenantId);
    for (let i = 0; i < 3; i += 1) expect((await deliver(tenant, { walletId: wallet.id, amount: '0.1' })).status).toBe(201);
    await waitFor(async () => ((await balanceOf(tenant.tenantId, wallet.id)) === '0.30' ? true : undefined), {
      what: 'a balance of exactly 0.30',
    });
    expectError(await deliver(tenant, { walletId: wallet.id, amount: '10.001' }), 400, 'INVALID_AMOUNT');
  });

  it('signs the amount exactly as its JSON token: 100.10 verifies as 100.10, not as 100.1', async () => {
    const tenant = await newTenant();
    const wallet = await createWallet(tenant.tenantId);
    expect((await deliver(tenant, { walletId: wallet.id, amount: '100.10', signedAmount: '100.10' })).status).toBe(201);
    expectError(await deliver(tenant, { walletId: wallet.id, amount: '100.10', signedAmount: '100.1' }), 401, 'INVALID_WEBHOOK_SIGNATURE');
  });

  it('verifies with a rotated secret after refetching it from identity', async () => {
    const tenant = await newTenant();
    const wallet = await createWallet(tenant.tenantId);
    expect((await deliver(tenant, { walletId: wallet.id, amount: '1' })).status).toBe(201);
    const rotated = await identity.rotateSecret(tenant.tenantId, 'mtn');
    expect((await deliver({ ...tenant, secret: rotated }, { walletId: wallet.id, amount: '1' })).status).toBe(201);
  });

  it('takes a delivery without providerCode from the one of several providers whose secret verifies it, into its float', async () => {
    const tenant = await newTenant();
    const airtel = await identity.createProvider(tenant.tenantId, 'airtel');
    const wallet = await createWallet(tenant.tenantId);
    const unnamed = await deliver({ ...tenant, secret: airtel.webhookSecret }, { walletId: wallet.id, amount: '3' });
    expect(unnamed.status).toBe(201);
    expect(depositSchema.parse(unnamed.body)).toMatchObject({ providerCode: 'airtel', status: 'completed' });
    const [entry] = await waitFor(
      async () => {
        const entries = await entriesOf(unnamed.body.id);
        return entries.length === 1 ? entries : undefined;
      },
      { what: 'the deposit entry' },
    );
    expect(await linesOf(entry!.id)).toEqual(['DR momo-float:airtel 3.00', `CR wallet:${wallet.ownerId} 3.00`]);
    const named = await deliver({ ...tenant, secret: airtel.webhookSecret }, { walletId: wallet.id, amount: '3', providerCode: 'airtel' });
    expect(named.status).toBe(201);
    expect(named.body.providerCode).toBe('airtel');
    // Signed by mtn but named airtel: the named provider's secret is the one that must verify.
    expectError(await deliver(tenant, { walletId: wallet.id, amount: '3', providerCode: 'airtel' }), 401, 'INVALID_WEBHOOK_SIGNATURE');
  });
});

describe('GET /v1/deposits', () => {
  it('lists newest first with filters and cursor pages; another environment or tenant sees 404', async () => {
    const tenant = await newTenant();
    const wallet = await createWallet(tenant.tenantId);
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1) ids.push((await deliver(tenant, { walletId: wallet.id, amount: '1' })).body.id);
    const token = tenantToken(tenant.tenantId);
    const first = await harness.request('GET', `/v1/deposits?limit=2&walletId=${wallet.id}&source=momo&status=completed`, { token });
    expect(first.body.data.map((d: { id: string }) => d.id)).toEqual([ids[2], ids[1]]);
    const second = await harness.request(
      'GET',
      `/v1/deposits?limit=2&walletId=${wallet.id}&cursor=${encodeURIComponent(first.body.nextCursor)}`,
      { token },
    );
    expect(second.body.data.map((d: { id: string }) => d.id)).toEqual([ids[0]]);
    expect(second.body.nextCursor).toBeNull();
    expect((await harness.request('GET', '/v1/deposits?status=pending', { token })).body.data).toEqual([]);
    expectError(
      await harness.request('GET', `/v1/deposits/${ids[0]}`, { token: tenantToken(tenant.tenantId, { environment: 'test' }) }),
      404,
      'DEPOSIT_NOT_FOUND',
    );
    expectError(await harness.request('GET', `/v1/deposits/${ids[0]}`, { token: tenantToken(newTenantId()) }), 404, 'DEPOSIT_NOT_FOUND');
  });
});
