import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { type JournalEntry, momoWebhookSignature } from '@wallet/contracts';
import { isWalletApiError, WalletClient } from '@wallet/sdk';
import { DEV_SECRETS_FILE } from './dev-secrets';

/**
 * `npm run demo`: the whole product against the running system (`npm start`), through the
 * public API and the SDK only. A new tenant gets keys, a team, a mobile money provider, a fee
 * schedule and wallets; money comes in by webhook and by bank slip, moves between wallets with
 * fees, leaves by payout (one approved and delivered, one rejected); the tenant funds its float
 * and withdraws from it under maker-checker (approved and delivered). Then the balances, the
 * journal, the analytics and both reconciliations are printed. Exits non-zero when any step fails or the demo tenant's
 * reconciliation is not `ok`; the platform's (every tenant) is printed for information only, since
 * other tenants' books on a shared system are not the demo's to answer for.
 *
 * It ends with the dashboard's address and the logins of the demo tenant's org-admin and approver.
 *
 * GATEWAY_URL (default http://127.0.0.1:$GATEWAY_PORT or 8080), ADMIN_URL (default
 * http://127.0.0.1:$ADMIN_PORT or 8081), DASHBOARD_URL (default http://127.0.0.1:$DASHBOARD_PORT
 * or 8082), SYSTEM_API_KEY (default: the development key `npm start` generated).
 */

const CURRENCY = 'USD';
const WAIT_MS = 30_000;

const gatewayUrl = process.env.GATEWAY_URL ?? `http://127.0.0.1:${process.env.GATEWAY_PORT ?? 8080}`;
const adminUrl = process.env.ADMIN_URL ?? `http://127.0.0.1:${process.env.ADMIN_PORT ?? 8081}`;
const dashboardUrl = process.env.DASHBOARD_URL ?? `http://127.0.0.1:${process.env.DASHBOARD_PORT ?? 8082}`;

function say(line = ''): void {
  process.stdout.write(`${line}\n`);
}

function step(title: string): void {
  say();
  say(`== ${title}`);
}

function systemKey(): string {
  if (process.env.SYSTEM_API_KEY) return process.env.SYSTEM_API_KEY;
  if (existsSync(DEV_SECRETS_FILE))
    return (JSON.parse(readFileSync(DEV_SECRETS_FILE, 'utf8')) as { SYSTEM_API_KEY: string }).SYSTEM_API_KEY;
  throw new Error(
    `No SYSTEM_API_KEY set and no development key in ${DEV_SECRETS_FILE}: start the system with \`npm start\` first, or set SYSTEM_API_KEY`,
  );
}

async function systemIsUp(): Promise<boolean> {
  try {
    return (await fetch(`${gatewayUrl}/readyz`, { signal: AbortSignal.timeout(3000) })).ok;
  } catch {
    return false;
  }
}

async function eventually<T>(what: string, read: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what} after ${WAIT_MS / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

function lineText(line: JournalEntry['lines'][number]): string {
  return `${line.direction} ${line.accountName.padEnd(28)} ${line.amount.padStart(10)} ${line.currencyCode}`;
}

async function main(): Promise<void> {
  if (!(await systemIsUp())) {
    console.error(
      `The gateway at ${gatewayUrl} is not ready. Start the system first with \`npm start\` (in another terminal), then run \`npm run demo\` again.`,
    );
    process.exit(1);
  }
  const platform = new WalletClient({ baseUrl: adminUrl, auth: { type: 'system', systemKey: systemKey() } });
  const stamp = Date.now().toString(36);

  step('Platform: a tenant, its fee schedule and its first API key');
  const tenant = await platform.system.organizations.create({
    name: `Demo Agents ${stamp}`,
    slug: `demo-agents-${stamp}`,
    config: { defaultCurrency: CURRENCY, allowedCurrencies: [CURRENCY], maxTransactionAmount: '10000.00' },
  });
  say(`tenant ${tenant.id} (${tenant.name})`);
  const schedule = await platform.fees.tenantSchedules.create(tenant.id, {
    name: 'Standard',
    isDefault: true,
    platformCommissionBps: 2000,
  });
  for (const rule of [
    { transactionType: 'deposit' as const, currencyCode: CURRENCY, flatFee: '0.50' },
    { transactionType: 'transfer' as const, currencyCode: CURRENCY, flatFee: '0.25', percentageFee: '1', maxFee: '5.00' },
    { transactionType: 'payout' as const, currencyCode: CURRENCY, flatFee: '1.00' },
  ]) {
    await platform.fees.tenantSchedules.addRule(tenant.id, schedule.id, rule);
  }
  await platform.fees.tenantSchedules.publish(tenant.id, schedule.id, { makeDefault: true });
  say(
    `default fee schedule ${schedule.id}: deposit 0.50; transfer 0.25 + 1 % (at most 5.00); payout 1.00; platform commission 20 % of each fee`,
  );
  const adminKey = await platform.apiKeys.createForTenant(tenant.id, {
    name: 'ops console',
    scopes: ['tenant:manage'],
    environment: 'live',
  });
  const ops = new WalletClient({ baseUrl: gatewayUrl, auth: { type: 'secret', apiKey: adminKey.key as string } });
  say(`secret key ${adminKey.id} (tenant:manage)`);

  step('Tenant: an HMAC-signed key, a team and a mobile money provider');
  const signerKey = await ops.apiKeys.create({
    name: 'backend',
    authMode: 'hmac',
    scopes: ['wallets:read', 'transfers:create'],
    environment: 'live',
  });
  const backend = new WalletClient({
    baseUrl: gatewayUrl,
    auth: { type: 'hmac', keyId: signerKey.id, signingSecret: signerKey.signingSecret as string },
  });
  say(`HMAC key ${signerKey.id}: every request it makes is signed`);
  // The org-admin's and the approver's passwords are printed at the end, to sign in to the dashboard with.
  const logins = {
    admin: { email: `grace+${stamp}@demo.example`, password: `demo-${randomUUID()}` },
    approver: { email: `abel+${stamp}@demo.example`, password: `demo-${randomUUID()}` },
  };
  const admin = await ops.team.create({ name: 'Grace Admin', ...logins.admin, orgRole: 'org-admin' });
  const operator = await ops.team.create({
    name: 'Olga Operator',
    email: `olga+${stamp}@demo.example`,
    password: `demo-${randomUUID()}`,
    orgRole: 'operator',
  });
  const approver = await ops.team.create({ name: 'Abel Approver', ...logins.approver, orgRole: 'approver' });
  say(`team: ${admin.id} org-admin, ${operator.id} operator (requests), ${approver.id} approver (decides)`);
  const provider = await ops.momoProviders.create({ providerCode: 'mtn', name: 'MTN Mobile Money' });
  say(`mobile money provider ${provider.providerCode}; its webhook secret signs its deposits`);

  step('Wallets');
  const alice = await ops.wallets.create({ ownerType: 'user', ownerId: `alice-${stamp}`, currencyCode: CURRENCY });
  const bob = await ops.wallets.create({ ownerType: 'user', ownerId: `bob-${stamp}`, currencyCode: CURRENCY });
  const shop = await ops.wallets.create({ ownerType: 'company', ownerId: `corner-shop-${stamp}`, currencyCode: CURRENCY });
  say(`alice ${alice.id}, bob ${bob.id}, corner shop ${shop.id}`);

  step('Deposits: a signed mobile money webhook and a bank slip matched to the bank statement');
  const transactionId = `mtn-${randomUUID()}`;
  const timestamp = new Date().toISOString();
  const phoneNumber = '+256700000001';
  const signature = momoWebhookSignature(provider.webhookSecret, {
    transactionId,
    walletId: alice.id,
    amountText: '500.00',
    currencyCode: CURRENCY,
    phoneNumber,
    timestamp,
  });
  const webhook = await fetch(`${gatewayUrl}/v1/deposits/momo-webhook`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: `{"transactionId":"${transactionId}","phoneNumber":"${phoneNumber}","amount":500.00,"currencyCode":"${CURRENCY}","walletId":"${alice.id}","signature":"${signature}","timestamp":"${timestamp}"}`,
  });
  if (webhook.status !== 201) throw new Error(`the momo webhook answered ${webhook.status}: ${await webhook.text()}`);
  const momo = (await webhook.json()) as { id: string; status: string; fee: string };
  say(`webhook deposit ${momo.id}: 500.00 to alice, fee ${momo.fee}, ${momo.status}`);
  const slipReference = `SLIP-${stamp}`;
  const slip = await ops.deposits.submitBankSlip({
    walletId: bob.id,
    amount: '300.00',
    currencyCode: CURRENCY,
    bankCode: 'stanbic',
    slipReference,
  });
  await ops.deposits.importStatement({
    bankCode: 'stanbic',
    currencyCode: CURRENCY,
    lines: [{ date: new Date().toISOString().slice(0, 10), reference: slipReference, amount: '300.00', description: 'cash deposit' }],
  });
  const verified = await ops.deposits.verify(slip.id, { actorId: operator.id });
  say(`bank slip ${slip.id}: 300.00 to bob, matched to the imported statement line, ${verified.status}`);

  step('Transfers with fees (signed requests)');
  for (const [from, to, amount, label] of [
    [alice, shop, '120.00', 'alice -> corner shop'],
    [bob, alice, '45.50', 'bob -> alice'],
    [alice, bob, '10.00', 'alice -> bob'],
  ] as const) {
    const sent = await backend.transfers.create({ fromWalletId: from.id, toWalletId: to.id, amount, currencyCode: CURRENCY });
    say(`${label}: ${sent.amount} + fee ${sent.fee}, ${sent.status}`);
  }

  step('Payouts under maker-checker');
  const paid = await ops.payouts.create({
    walletId: shop.id,
    amount: '50.00',
    currencyCode: CURRENCY,
    payoutMethod: 'momo',
    destination: { phoneNumber: '+256700000002', network: 'mtn' },
    requestedBy: operator.id,
  });
  say(`payout ${paid.id}: 50.00 + fee ${paid.fee} held in suspense, ${paid.status}`);
  const selfApproval = await ops.payouts.approve(paid.id, { actorId: operator.id }).catch((error: unknown) => error);
  say(
    `the requester approving its own case: ${isWalletApiError(selfApproval, 'SELF_APPROVAL_FORBIDDEN') ? 'refused, SELF_APPROVAL_FORBIDDEN' : `NOT refused (${String(selfApproval)})`}`,
  );
  if (!isWalletApiError(selfApproval, 'SELF_APPROVAL_FORBIDDEN')) throw new Error('self-approval was not refused');
  await ops.payouts.approve(paid.id, { actorId: approver.id });
  const delivered = await eventually('the approved payout to be delivered by the sandbox rail', async () => {
    const current = await ops.payouts.get(paid.id);
    return current.status === 'completed' || current.status === 'failed' ? current : undefined;
  });
  say(`approved by ${approver.id}, delivered by the sandbox rail: ${delivered.status}`);
  const refused = await ops.payouts.create({
    walletId: bob.id,
    amount: '20.00',
    currencyCode: CURRENCY,
    payoutMethod: 'bank',
    destination: { bankCode: 'stanbic', accountNumber: '0123456789', accountName: 'Bob' },
    requestedBy: operator.id,
  });
  const rejected = await ops.payouts.reject(refused.id, { actorId: approver.id, reason: 'account name does not match the wallet owner' });
  say(`payout ${refused.id}: ${rejected.status}; the hold went back to bob's wallet`);

  step('Treasury: a float deposit and a withdrawal under maker-checker');
  const floatDeposit = await ops.treasury.floatDeposits.create({
    amount: '1000.00',
    currencyCode: CURRENCY,
    rail: 'bank',
    externalReference: `TT-${stamp}`,
    depositedBy: operator.id,
  });
  say(`float deposit ${floatDeposit.id}: ${floatDeposit.amount} over bank, ${floatDeposit.status}`);
  const withdrawal = await ops.treasury.withdrawals.create({
    source: 'operating_float',
    amount: '250.00',
    currencyCode: CURRENCY,
    payoutMethod: 'bank',
    destination: { bankCode: 'stanbic', accountNumber: '9876543210', accountName: 'Demo Agents Ltd' },
    requestedBy: operator.id,
  });
  say(`withdrawal ${withdrawal.id}: 250.00 of operating float held in suspense, ${withdrawal.status}`);
  const approvedWithdrawal = await ops.treasury.withdrawals.approve(withdrawal.id, { actorId: approver.id });
  say(`approved by ${approver.id}: ${approvedWithdrawal.status}, settled into payout clearing`);
  // Until its outcome's entry posted, so the journal below shows it.
  const deliveredWithdrawal = await eventually('the approved withdrawal to be delivered by the sandbox rail', async () => {
    const current = await ops.treasury.withdrawals.get(withdrawal.id);
    return (current.status === 'completed' || current.status === 'failed') && !current.awaitingLedger ? current : undefined;
  });
  say(`delivered by the sandbox rail: ${deliveredWithdrawal.status}, out of payout clearing over the bank rail`);
  const tooMuch = await ops.treasury.withdrawals
    .create({
      source: 'tenant_fees',
      amount: '1000.00',
      currencyCode: CURRENCY,
      payoutMethod: 'momo',
      destination: { phoneNumber: '+256700000003', network: 'mtn' },
      requestedBy: operator.id,
    })
    .catch((error: unknown) => error);
  if (!isWalletApiError(tooMuch, 'INSUFFICIENT_FUNDS'))
    throw new Error(`withdrawing more fee revenue than earned was not refused (${String(tooMuch)})`);
  say('withdrawing 1000.00 of fee revenue (more than earned): refused, INSUFFICIENT_FUNDS');

  step('Balances');
  for (const [name, wallet] of [
    ['alice', alice],
    ['bob', bob],
    ['corner shop', shop],
  ] as const) {
    say(`${name.padEnd(12)} ${(await ops.wallets.get(wallet.id)).balance.padStart(10)} ${CURRENCY}`);
  }

  const [treasury] = (await ops.treasury.balances()).data.filter((row) => row.currencyCode === CURRENCY);
  if (treasury) {
    say(
      `operating float ${treasury.operatingFloat}, fee revenue ${treasury.tenantFeeRevenue}, platform commission ${treasury.platformCommission}, suspense ${treasury.suspense}, payout clearing ${treasury.payoutClearing}`,
    );
  }

  step('The journal (oldest first)');
  const entries: JournalEntry[] = [];
  let cursor: string | undefined;
  do {
    const page = await ops.journal.list({ limit: 200, ...(cursor ? { cursor } : {}) });
    entries.push(...page.data);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  for (const entry of entries.reverse()) {
    say(`${entry.kind} ${entry.reference.type}:${entry.reference.id}`);
    for (const line of entry.lines) say(`    ${lineText(line)}`);
  }

  step("Analytics (read models fed by the ledger's events)");
  const analytics = await eventually('analytics to have applied every entry', async () => {
    const read = await ops.analytics.get({ currencyCode: CURRENCY });
    const figures = read.currencies.find((row) => row.currencyCode === CURRENCY);
    const applied = figures?.byKind.reduce((sum, kind) => sum + kind.entryCount, 0) ?? 0;
    return applied >= entries.length ? { read, figures } : undefined;
  });
  if (analytics.figures) {
    say(
      `fee revenue ${analytics.figures.totals.feeRevenue}, platform commission ${analytics.figures.totals.platformCommission}, entries ${analytics.figures.totals.entryCount}`,
    );
    for (const kind of analytics.figures.byKind)
      say(`  ${kind.kind.padEnd(22)} ${String(kind.entryCount).padStart(3)} entries, volume ${kind.volume}`);
    say(`pending payouts ${analytics.figures.pendingPayouts.count}, pending withdrawals ${analytics.figures.pendingWithdrawals.count}`);
  }
  const errors = analytics.read.requestErrors;
  say(
    errors.available
      ? `requests ${errors.totalRequests}, errors ${errors.errorCount} (${errors.byErrorCode.map((each) => `${each.errorCode} ${each.count}`).join(', ')})`
      : `request errors unavailable: ${errors.reason}`,
  );

  step('Reconciliation');
  // The demo answers for its own tenant's books; the platform's run covers every tenant on this
  // system, whose unmatched bank lines are theirs to settle, so it is shown and not judged.
  const tenantResult = await ops.reconciliation.run();
  for (const check of tenantResult.checks)
    say(`${check.name.padEnd(16)} ${check.status}${check.mismatches.length > 0 ? ` ${JSON.stringify(check.mismatches)}` : ''}`);
  say(`tenant: ${tenantResult.status}`);
  const platformStatus = await platform.reconciliation.runAcrossTenants().then(
    (result) => result.status,
    (error: unknown) => `not available (${isWalletApiError(error) ? error.code : String(error)})`,
  );
  say(`platform (every tenant, for information): ${platformStatus}`);
  if (tenantResult.status !== 'ok') {
    console.error("the demo tenant's reconciliation did not come back ok");
    process.exit(1);
  }
  say();
  say('Demo finished: every cent of the demo tenant is where the journal says it is.');
  say();
  say(`The dashboard: ${dashboardUrl} (environment live)`);
  say(`  org-admin  ${logins.admin.email}  password ${logins.admin.password}`);
  say(`  approver   ${logins.approver.email}  password ${logins.approver.password}`);
}

main().catch((error: unknown) => {
  console.error(isWalletApiError(error) ? `${error.status} ${error.code}: ${error.message}` : error);
  process.exit(1);
});
