import { randomUUID } from 'node:crypto';
import { momoWebhookSignature, reconciliationResultSchema, walletSchema } from '@wallet/contracts';
import { waitFor } from '@wallet/kit/testing';
import { buildHistory, type HistoryTenant } from '../../scripts/lib/history-builder';
import { type IdentityPeer, startIdentity } from '../../services/payments/test/deposits-support';
import { publishedDefault } from '../../services/payments/test/fees-support';
import { internalToken, type LedgerBackedHarness, startLedgerBackedHarness, tenantToken } from '../../services/payments/test/support';

/**
 * The scale benchmark's bulk history (scripts/lib/history-builder.ts) against the real ledger,
 * payments and treasury: what it writes must be what the system would have written, so
 * reconciliation says ok for each tenant and for the platform, and treasury's read models,
 * fed by the ledger's events, count every entry.
 */
let harness: LedgerBackedHarness;
let identity: IdentityPeer;

beforeAll(async () => {
  identity = await startIdentity();
  harness = await startLedgerBackedHarness({ IDENTITY_URL: identity.url, PAYMENTS_TENANT_WAIT_MS: '1000' }, { treasury: true });
});

afterAll(async () => {
  await harness?.close();
  await identity?.close();
});

const token = (tenantId: string) => tenantToken(tenantId, { scopes: ['tenant:manage'] });

/** A tenant whose transfers carry a fee and a commission (six lines each), with funded wallets. */
async function fundedTenant(wallets: number): Promise<HistoryTenant> {
  const config = { allowedCurrencies: ['USD'], maxTransactionAmount: '1000000' };
  const tenantId = await identity.createTenant(config);
  await harness.publishTenant(tenantId, config);
  const provider = await identity.createProvider(tenantId, 'mtn');
  await publishedDefault(
    harness,
    tenantId,
    [{ transactionType: 'transfer', currencyCode: 'USD', flatFee: '0.05', percentageFee: '1' }],
    2000,
  );
  const made: HistoryTenant['wallets'] = [];
  for (let index = 0; index < wallets; index += 1) {
    const ownerId = `user-${randomUUID().slice(0, 8)}`;
    const created = await harness.request('POST', '/v1/wallets', {
      token: token(tenantId),
      body: { ownerType: 'user', ownerId, currencyCode: 'USD' },
    });
    expect(created.status).toBe(201);
    const wallet = walletSchema.parse(created.body);
    const transactionId = `mtn-${randomUUID()}`;
    const timestamp = new Date().toISOString();
    const signature = momoWebhookSignature(provider.webhookSecret, {
      transactionId,
      walletId: wallet.id,
      amountText: '10000.00',
      currencyCode: 'USD',
      phoneNumber: '+256700000001',
      timestamp,
    });
    const rawBody = `{"transactionId":"${transactionId}","phoneNumber":"+256700000001","amount":10000.00,"currencyCode":"USD","walletId":"${wallet.id}","signature":"${signature}","timestamp":"${timestamp}"}`;
    const deposited = await harness.request('POST', '/v1/deposits/momo-webhook', {
      token: internalToken({ surface: 'public', authMode: 'none' }),
      rawBody,
    });
    expect(deposited.status).toBe(201);
    made.push({ id: wallet.id, ownerId, currencyCode: 'USD', status: 'active' });
  }
  return { tenantId, environment: 'live', wallets: made, lines: 0 };
}

async function analyticsEntries(tenantId: string): Promise<number> {
  const counted = await harness.treasury?.db.raw<{ rows: Array<{ count: string }> }>(
    'SELECT count(*) AS count FROM analytics_entries WHERE tenant_id = ?',
    [tenantId],
  );
  return Number(counted?.rows[0]?.count ?? 0);
}

describe('the scale benchmark history builder', () => {
  it('writes transfers that reconcile for each tenant and the platform, and that the read models count', async () => {
    const big = { ...(await fundedTenant(6)), lines: 1_200 };
    const small = { ...(await fundedTenant(3)), lines: 300 };

    const built = await buildHistory({ ledgerDb: harness.ledger.db, paymentsDb: harness.db, batchSize: 40, currencyCode: 'USD' }, [
      big,
      small,
    ]);

    // Six lines a transfer: a fee and a commission on each.
    expect(built.lines).toBe(built.transfers * 6);
    expect(built.lines).toBeGreaterThanOrEqual(1_500);
    const counted = await harness.db.raw<{ rows: Array<{ tenant_id: string; count: string }> }>(
      `SELECT tenant_id, count(*) AS count FROM transfers WHERE status = 'completed' AND journal_entry_id IS NOT NULL GROUP BY tenant_id`,
    );
    const byTenant = new Map(counted.rows.map((row) => [row.tenant_id, Number(row.count)]));
    expect((byTenant.get(big.tenantId) ?? 0) + (byTenant.get(small.tenantId) ?? 0)).toBe(built.transfers);
    // Both tenants got their share, interleaved in the same batches.
    expect(byTenant.get(big.tenantId)).toBeGreaterThanOrEqual(200);
    expect(byTenant.get(small.tenantId)).toBeGreaterThanOrEqual(50);

    for (const tenant of [big, small]) {
      const answer = await harness.request('GET', '/v1/admin/reconciliation', {
        token: tenantToken(tenant.tenantId, { scopes: ['analytics:read'] }),
      });
      expect(answer.status).toBe(200);
      expect(reconciliationResultSchema.parse(answer.body)).toMatchObject({ status: 'ok' });
      // The deposits and every transfer, through the ledger's events.
      const entries = tenant.wallets.length + (byTenant.get(tenant.tenantId) ?? 0);
      await waitFor(async () => ((await analyticsEntries(tenant.tenantId)) === entries ? true : undefined), {
        what: `treasury's ${entries} entries of ${tenant.tenantId}`,
      });
    }
    const platform = await harness.request('GET', '/v1/system/reconciliation');
    expect(platform.status).toBe(200);
    expect(reconciliationResultSchema.parse(platform.body)).toMatchObject({ status: 'ok' });
  });

  it('stops after maxTransfers', async () => {
    const tenant = { ...(await fundedTenant(2)), lines: 6_000 };
    const built = await buildHistory(
      { ledgerDb: harness.ledger.db, paymentsDb: harness.db, batchSize: 7, currencyCode: 'USD', maxTransfers: 25 },
      [tenant],
    );
    expect(built.transfers).toBe(25);
    // Three of a transfer's six lines are on its two wallets (amount and fee out, amount in).
    const walletLines = tenant.wallets.reduce((sum, wallet) => sum + (built.linesByWallet.get(wallet.id) ?? 0), 0);
    expect(walletLines).toBe(25 * 3);
  });
});
