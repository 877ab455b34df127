import { randomUUID } from 'node:crypto';
import { momoWebhookSignature } from '@wallet/contracts';
import { waitFor } from '@wallet/kit/testing';
import { isWalletApiError, type WalletClient } from '@wallet/sdk';

/*
 * Drives one tenant through every state change that announces an event (docs/events.md), through
 * the public API as a tenant would: wallets, deposits of each kind, transfers, a reversal,
 * payouts and withdrawals to each end, a float deposit, a freeze, a mismatch reconciliation finds.
 */

const CURRENCY = 'KES';

export interface Tenant {
  ops: WalletClient;
  gatewayUrl: string;
  operatorId: string;
  approverId: string;
  providerSecret: string;
}

async function until<T>(what: string, read: () => Promise<T | undefined>): Promise<T> {
  return waitFor(read, { timeoutMs: 30_000, what });
}

async function momoDeposit(tenant: Tenant, walletId: string, amount: string, currencyCode = CURRENCY): Promise<Response> {
  const transactionId = `mtn-${randomUUID()}`;
  const timestamp = new Date().toISOString();
  const phoneNumber = '+254700000001';
  const signature = momoWebhookSignature(tenant.providerSecret, {
    transactionId,
    walletId,
    amountText: amount,
    currencyCode,
    phoneNumber,
    timestamp,
  });
  return fetch(`${tenant.gatewayUrl}/v1/deposits/momo-webhook`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    // The amount as a JSON number, as providers send it: the signature covers its text.
    body: `{"transactionId":"${transactionId}","phoneNumber":"${phoneNumber}","amount":${amount},"currencyCode":"${currencyCode}","walletId":"${walletId}","signature":"${signature}","timestamp":"${timestamp}"}`,
  });
}

/** wallet.created, deposit.* (a mobile money credit, a refused one, a slip pending then rejected), wallet.frozen/unfrozen. */
async function walletsAndDeposits(tenant: Tenant): Promise<{ alice: string; bob: string }> {
  const { ops } = tenant;
  const alice = await ops.wallets.create({ ownerType: 'user', ownerId: `alice-${randomUUID()}`, currencyCode: CURRENCY });
  const bob = await ops.wallets.create({ ownerType: 'user', ownerId: `bob-${randomUUID()}`, currencyCode: CURRENCY });
  expect((await momoDeposit(tenant, alice.id, '900.00')).status).toBe(201);
  // A currency the tenant does not allow: the delivery is refused and kept as a rejected deposit.
  expect((await momoDeposit(tenant, alice.id, '5.00', 'USD')).status).toBe(422);
  const slip = await ops.deposits.submitBankSlip({
    walletId: bob.id,
    amount: '40.00',
    currencyCode: CURRENCY,
    bankCode: 'kcb',
    slipReference: 'NO-LINE',
  });
  // Verified before its statement line arrived: rejected (NO_MATCHING_STATEMENT_ENTRY).
  expect((await ops.deposits.verify(slip.id, { actorId: tenant.operatorId })).status).toBe('rejected');
  await ops.wallets.freeze(bob.id, { reason: 'checking a complaint' });
  await ops.wallets.unfreeze(bob.id, { reason: 'complaint resolved' });
  return { alice: alice.id, bob: bob.id };
}

/** transfer.completed, transfer.failed (more than the wallet holds), transfer.reversed. */
async function transfers(tenant: Tenant, wallets: { alice: string; bob: string }): Promise<void> {
  const { ops } = tenant;
  const sent = await ops.transfers.create({
    fromWalletId: wallets.alice,
    toWalletId: wallets.bob,
    amount: '100.00',
    currencyCode: CURRENCY,
  });
  const tooMuch = await ops.transfers
    .create({ fromWalletId: wallets.bob, toWalletId: wallets.alice, amount: '5000.00', currencyCode: CURRENCY })
    .catch((error: unknown) => error);
  expect(isWalletApiError(tooMuch, 'INSUFFICIENT_FUNDS')).toBe(true);
  await ops.transfers.reverse(sent.id, { amount: '10.00', reason: 'customer refund' });
}

/** payout.requested/approved/completed, payout.failed by the rail and by a refused hold, payout.rejected. */
async function payouts(tenant: Tenant, walletId: string): Promise<void> {
  const { ops, operatorId, approverId } = tenant;
  const request = (phoneNumber: string, amount = '20.00') =>
    ops.payouts.create({
      walletId,
      amount,
      currencyCode: CURRENCY,
      payoutMethod: 'momo',
      destination: { phoneNumber, network: 'mtn' },
      requestedBy: operatorId,
    });
  const paid = await request('+254700000002');
  await ops.payouts.approve(paid.id, { actorId: approverId });
  const refusedByRail = await request('+254700000000');
  await ops.payouts.approve(refusedByRail.id, { actorId: approverId });
  const rejected = await request('+254700000003');
  await ops.payouts.reject(rejected.id, { actorId: approverId, reason: 'not the owner' });
  const unfunded = await request('+254700000004', '9000.00').catch((error: unknown) => error);
  expect(isWalletApiError(unfunded, 'INSUFFICIENT_FUNDS')).toBe(true);
  for (const id of [paid.id, refusedByRail.id])
    await until(`payout ${id} delivered`, async () => ((await ops.payouts.get(id)).status.match(/completed|failed/) ? true : undefined));
}

/** float_deposit.completed, withdrawal.requested/approved/rejected, withdrawal.failed (a hold the source cannot fund). */
async function treasury(tenant: Tenant): Promise<void> {
  const { ops, operatorId, approverId } = tenant;
  await ops.treasury.floatDeposits.create({ amount: '1000.00', currencyCode: CURRENCY, rail: 'bank', depositedBy: operatorId });
  const request = (amount: string, source: 'operating_float' | 'tenant_fees' = 'operating_float') =>
    ops.treasury.withdrawals.create({
      source,
      amount,
      currencyCode: CURRENCY,
      payoutMethod: 'bank',
      destination: { bankCode: 'kcb', accountNumber: '1234567890', accountName: 'Agents Ltd' },
      requestedBy: operatorId,
    });
  const approved = await request('100.00');
  await ops.treasury.withdrawals.approve(approved.id, { actorId: approverId });
  const rejected = await request('50.00');
  await ops.treasury.withdrawals.reject(rejected.id, { actorId: approverId, reason: 'wrong account' });
  const unfunded = await request('9000.00', 'tenant_fees').catch((error: unknown) => error);
  expect(isWalletApiError(unfunded, 'INSUFFICIENT_FUNDS')).toBe(true);
}

/** reconciliation.mismatch: a statement line no slip claims, found by a full run of the tenant. */
async function reconciliationMismatch(tenant: Tenant): Promise<void> {
  const { ops } = tenant;
  await ops.deposits.importStatement({
    bankCode: 'kcb',
    currencyCode: CURRENCY,
    lines: [{ date: '2026-11-30', reference: 'NOBODY-CLAIMS-THIS', amount: '12.00', description: 'unexplained credit' }],
  });
  const run = await ops.reconciliation.fullRuns.start();
  await until('the full run', async () => ((await ops.reconciliation.fullRuns.get(run.id)).state === 'succeeded' ? true : undefined));
}

/** Every state change that announces an event, in one tenant. */
export async function driveEveryEvent(tenant: Tenant): Promise<void> {
  const wallets = await walletsAndDeposits(tenant);
  await transfers(tenant, wallets);
  await payouts(tenant, wallets.alice);
  await treasury(tenant);
  await reconciliationMismatch(tenant);
}
