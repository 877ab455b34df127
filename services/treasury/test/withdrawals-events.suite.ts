import { randomUUID } from 'node:crypto';
import { waitFor } from '@wallet/kit/testing';
import { parseWithdrawal, startWithdrawalsHarness, type WithdrawalsHarness } from './withdrawals-support';

/**
 * Each creation is answered while the ledger is stopped, so it answers 202 pending at the
 * deadline however fast the machine, and only the ledger's events (once it is back) can record
 * the hold, or its refusal.
 */
let harness: WithdrawalsHarness & { closeAll(): Promise<void> };

beforeAll(async () => {
  harness = await startWithdrawalsHarness({ TREASURY_POSTING_REPLY_TIMEOUT_MS: '10' });
});

afterAll(async () => {
  await harness?.closeAll();
});

it('answers 202 pending past the deadline; the ledger event records the hold once, and only then may it be decided', async () => {
  const tenant = await harness.newTenant();
  await harness.earnFees(tenant, '20.00');
  const key = `idem-${randomUUID()}`;
  const created = await harness.whileLedgerStopped(() =>
    harness.requestWithdrawal(tenant, { source: 'tenant_fees', amount: '12.34' }, { key }),
  );
  expect(created.status).toBe(202);
  const pending = parseWithdrawal(created);
  expect(pending).toMatchObject({ status: 'pending', awaitingLedger: true, holdJournalEntryId: null, amount: '12.34' });

  const held = await waitFor(
    async () => {
      const read = parseWithdrawal(await harness.request(tenant, 'GET', `/v1/admin/money/withdrawals/${pending.id}`));
      return read.holdJournalEntryId ? read : undefined;
    },
    { what: 'the ledger event to record the hold' },
  );
  expect(held).toMatchObject({ status: 'pending', awaitingLedger: false });

  const replay = await harness.requestWithdrawal(tenant, { source: 'tenant_fees', amount: '12.34' }, { key });
  expect(replay.status).toBe(202);
  expect(replay.body.id).toBe(pending.id);
  const [entries] = await harness
    .ledgerDb('journal_entries')
    .where({ reference_type: 'withdrawal', reference_id: pending.id })
    .count<{ count: string }[]>('* as count');
  expect(Number(entries?.count)).toBe(1);

  // The decision waits for its settle as long as the hold's request did: 10 ms may pass first.
  const approved = await harness.request(tenant, 'POST', `/v1/admin/money/withdrawals/${pending.id}/approve`, {
    body: { actorId: tenant.checker },
    key: null,
  });
  expect([200, 202]).toContain(approved.status);
  expect(parseWithdrawal(approved)).toMatchObject({ status: 'approved', awaitingLedger: approved.status === 202 });
  const settled = await waitFor(
    async () => {
      const read = parseWithdrawal(await harness.request(tenant, 'GET', `/v1/admin/money/withdrawals/${pending.id}`));
      return read.awaitingLedger ? undefined : read;
    },
    { what: 'the settle to post' },
  );
  expect(settled.decisionJournalEntryId).toMatch(/^je_/);
});

it('fails the case from the ledger’s rejected event when the source does not hold the amount', async () => {
  const tenant = await harness.newTenant();
  await harness.earnFees(tenant, '5.00');
  const created = await harness.whileLedgerStopped(() => harness.requestWithdrawal(tenant, { source: 'tenant_fees', amount: '5.01' }));
  expect(created.status).toBe(202);
  const failed = await waitFor(
    async () => {
      const read = parseWithdrawal(await harness.request(tenant, 'GET', `/v1/admin/money/withdrawals/${created.body.id}`));
      return read.status === 'failed' ? read : undefined;
    },
    { what: 'the ledger event to fail the case' },
  );
  expect(failed).toMatchObject({ failureCode: 'INSUFFICIENT_FUNDS', holdJournalEntryId: null });
  const decision = await harness.request(tenant, 'POST', `/v1/admin/money/withdrawals/${created.body.id}/reject`, {
    body: { actorId: tenant.checker, reason: 'no funds' },
    key: null,
  });
  expect(`${decision.status} ${decision.body.error.code}`).toBe('409 CASE_NOT_PENDING');
});
