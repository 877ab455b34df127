import { readFile } from 'node:fs/promises';
import BigNumber from 'bignumber.js';
import type { Page } from 'playwright-core';
import { formatMoney } from '../../apps/dashboard/src/format/money';
import {
  accessibilityViolations,
  CURRENCY,
  type DashboardRole,
  type DashboardSystem,
  screenshot,
  settled,
  signIn,
  dashboardSuite,
} from './support';
import { waitFor } from '@wallet/kit/testing';

/**
 * The money screens in a real Chromium against the real system: a payout requested in the UI
 * and approved in another member's inbox, with its effect on the wallet, the journal and the
 * treasury; the maker never offered (nor granted) their own approval; float deposits,
 * withdrawals, bank slips verified against an uploaded CSV statement; each screen checked by axe.
 */

const violations: string[] = [];
const suite = dashboardSuite('dashboard_money', { height: 900, locale: 'en-US' });
let system: DashboardSystem;
beforeAll(() => {
  system = suite.system;
});

async function pageAs(role: DashboardRole): Promise<Page> {
  const page = await suite.newPage();
  await signIn(page, system, role);
  return page;
}

/** Checks the screen as it is with axe and keeps a screenshot of it. */
async function look(page: Page, name: string): Promise<void> {
  violations.push(...(await accessibilityViolations(page, name)));
  await screenshot(page, `money-${name}`);
}

const usd = (amount: string) => formatMoney(amount, CURRENCY, { locale: 'en-US' });

/** A request the page itself sends with its session and CSRF token, as a member could forge it from the console. */
async function forgedPost(page: Page, path: string, body: unknown): Promise<{ status: number; code: string | undefined }> {
  return page.evaluate(
    async ({ path, body }) => {
      const { cookie } = (globalThis as unknown as { document: { cookie: string } }).document;
      const csrf = /(?:^|;\s*)wallet_csrf=([^;]+)/.exec(cookie)?.[1] ?? '';
      const response = await fetch(path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-csrf-token': csrf, 'idempotency-key': crypto.randomUUID() },
        body: JSON.stringify(body),
      });
      const answer = (await response.json()) as { error?: { code?: string } };
      return { status: response.status, code: answer.error?.code };
    },
    { path, body },
  );
}

/** Requests a payout through the Payouts screen's dialog and lands on the new case's page; returns its id. */
async function requestPayout(page: Page, walletId: string, amount: string, screenName?: string): Promise<string> {
  await page.goto(`${system.dashboardUrl}/payouts`);
  await settled(page, 'Payouts');
  await page.getByRole('button', { name: 'Request a payout' }).click();
  const dialog = page.getByRole('dialog', { name: 'Request a payout' });
  await dialog.getByLabel('Wallet id').fill(walletId);
  await dialog.getByLabel('Amount').fill(amount);
  await dialog.getByLabel('Currency').fill(CURRENCY);
  await dialog.getByLabel('Phone number').fill('+256700000001');
  await dialog.getByLabel('Network').fill('MTN');
  await dialog.getByLabel('Narration').fill('Agent commission, November');
  if (screenName) await look(page, screenName);
  await dialog.getByRole('button', { name: 'Request payout' }).click();
  await page.waitForURL(/\/payouts\/[^/]+$/);
  await settled(page, /^Payout /);
  return decodeURIComponent(new URL(page.url()).pathname.split('/').at(-1) as string);
}

describe('a payout from request to approval', () => {
  it('is requested by the operator, approved in the approver inbox, and shows on the wallet, in the journal and in the treasury', async () => {
    const wallet = system.wallets.counterpart;
    const walletBefore = await system.api.wallets.get(wallet.id);
    const clearingBefore = (await system.api.treasury.balances()).data.find((row) => row.currencyCode === CURRENCY)?.payoutClearing ?? '0';

    const operator = await pageAs('operator');
    const payoutId = await requestPayout(operator, wallet.id, '123.45', 'payout-request-dialog');
    await operator.getByText('Your request: awaits an approver other than you.').waitFor();
    expect(await operator.getByRole('button', { name: /^Approve/ }).count()).toBe(0);
    await look(operator, 'payout-page-maker');
    const requested = await system.api.payouts.get(payoutId);
    expect(requested).toMatchObject({
      walletId: wallet.id,
      amount: '123.45',
      currencyCode: CURRENCY,
      status: 'pending',
      requestedBy: system.members.operator.id,
      destination: { phoneNumber: '+256700000001', network: 'MTN' },
    });

    // The operator may not approve at all (no payouts:approve), whatever the page offers.
    expect(await forgedPost(operator, `/v1/payouts/${payoutId}/approve`, { actorId: system.members.operator.id })).toEqual({
      status: 403,
      code: 'INSUFFICIENT_SCOPE',
    });

    const approver = await pageAs('approver');
    // By address: the overview a sign-in lands on may still be loading its charts.
    await approver.goto(`${system.dashboardUrl}/approvals`);
    await settled(approver, 'Approvals');
    const row = approver.getByRole('row').filter({ hasText: payoutId });
    await row.waitFor();
    // The navigation counts what awaits a decision, as the API lists it.
    const awaiting =
      (await system.api.payouts.list({ status: 'pending', limit: 200 })).data.length +
      (await system.api.treasury.withdrawals.list({ status: 'pending', limit: 200 })).data.length;
    const inbox = approver.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: `Approvals ${awaiting} pending` });
    await inbox.waitFor();
    expect(await row.innerText()).toContain(usd('123.45'));
    expect(await row.innerText()).toContain('Mobile money +256700000001 (MTN)');
    // People by name: the requester is "The operator", never a usr_ id.
    await row.getByText('The operator', { exact: true }).waitFor();
    expect(await row.innerText()).not.toContain('usr_');
    await look(approver, 'approvals-inbox');
    // Both decisions are on the screen at 1440 px without scrolling the table sideways.
    for (const action of ['Approve', 'Reject']) {
      const box = await row.getByRole('button', { name: `${action} payout ${payoutId}` }).boundingBox();
      expect(box && box.x + box.width).toBeLessThanOrEqual(approver.viewportSize()?.width ?? 0);
    }
    await row.getByRole('button', { name: `Approve payout ${payoutId}` }).click();
    const dialog = approver.getByRole('dialog', { name: `Approve payout ${payoutId}` });
    await look(approver, 'approve-dialog');
    await dialog.getByRole('button', { name: 'Approve', exact: true }).click();
    await dialog.waitFor({ state: 'hidden' });
    await approver.getByRole('row').filter({ hasText: payoutId }).waitFor({ state: 'detached' });

    // Approved, the case goes to the mobile money rail, which delivers it: the payout ends completed.
    const approved = await waitFor(
      async () => {
        const payout = await system.api.payouts.get(payoutId);
        return payout.status === 'completed' && !payout.awaitingLedger ? payout : undefined;
      },
      { timeoutMs: 30_000, what: 'the approved payout to be delivered and posted' },
    );
    expect(approved).toMatchObject({
      decidedBy: system.members.approver.id,
      decisionJournalEntryId: expect.any(String),
      outcomeJournalEntryId: expect.any(String),
    });
    const held = new BigNumber(approved.amount).plus(approved.fee);

    // The wallet: amount and fee left it with the hold, which its statement shows.
    const walletAfter = await system.api.wallets.get(wallet.id);
    expect(new BigNumber(walletAfter.balance).toFixed(2)).toBe(new BigNumber(walletBefore.balance).minus(held).toFixed(2));
    await approver.goto(`${system.dashboardUrl}/wallets/${wallet.id}`);
    await settled(approver, `Wallet ${wallet.id}`);
    await approver.getByText(usd(walletAfter.balance), { exact: true }).first().waitFor();
    await approver.getByText(approved.holdJournalEntryId as string, { exact: true }).waitFor();

    // The journal: the settle moved the amount from suspense into payout clearing.
    const settle = await system.api.journal.get(approved.decisionJournalEntryId as string);
    expect(settle).toMatchObject({ kind: 'payout_settle', reference: { id: payoutId } });
    expect(settle.lines).toContainEqual(
      expect.objectContaining({ accountName: expect.stringMatching(/^payout-clearing/), direction: 'CR', amount: '123.45' }),
    );
    expect(settle.lines).toContainEqual(
      expect.objectContaining({ accountName: expect.stringMatching(/^suspense/), direction: 'DR', amount: held.toFixed(2) }),
    );
    await approver.goto(`${system.dashboardUrl}/payouts/${payoutId}`);
    await settled(approver, `Payout ${payoutId}`);
    expect(await approver.getByRole('region', { name: 'Activity' }).getByRole('link', { name: settle.id }).getAttribute('href')).toBe(
      `/journal/${settle.id}`,
    );
    await look(approver, 'payout-page-completed');
    const facts = approver.getByRole('table', { name: 'The payout case' });
    expect(await facts.getByRole('row', { name: /^Requested by/ }).innerText()).toMatch(/Requested by\s+The operator/);
    expect(await facts.getByRole('row', { name: /^Decided by/ }).innerText()).toMatch(/Decided by\s+You/);
    // The journal explorer shows the settle with its lines, as the API has it.
    await facts.getByRole('link', { name: settle.id }).click();
    await settled(approver, `Journal entry ${settle.id}`);
    const entryPage = await approver.getByRole('main').innerText();
    for (const line of settle.lines) expect(entryPage).toContain(line.accountName);
    expect(entryPage).toContain('123.45');

    // The treasury: payout clearing took the amount in at the settle and gave it to the rail at the delivery.
    const complete = await system.api.journal.get(approved.outcomeJournalEntryId as string);
    expect(complete).toMatchObject({ kind: 'payout_complete', reference: { id: payoutId } });
    expect(complete.lines).toContainEqual(
      expect.objectContaining({ accountName: expect.stringMatching(/^payout-clearing/), direction: 'DR', amount: '123.45' }),
    );
    const clearing = (await system.api.treasury.balances()).data.find((each) => each.currencyCode === CURRENCY)?.payoutClearing as string;
    expect(new BigNumber(clearing).minus(clearingBefore).toFixed(2)).toBe('0.00');
    await approver.goto(`${system.dashboardUrl}/treasury`);
    await settled(approver, 'Treasury');
    const balances = approver
      .getByRole('table', { name: 'Treasury balances by currency' })
      .getByRole('row', { name: new RegExp(`^${CURRENCY}`) });
    expect(await balances.getByRole('cell').nth(4).innerText()).toBe(
      formatMoney(clearing, CURRENCY, { locale: 'en-US', currencyDisplay: 'none' }),
    );
  });

  it('offers no member the approval of their own request, and the server refuses it when forged: SELF_APPROVAL_FORBIDDEN', async () => {
    // The org-admin may approve payouts (tenant:manage), so only the maker-checker rule stands in the way.
    const admin = await pageAs('org-admin');
    const payoutId = await requestPayout(admin, system.wallets.counterpart.id, '10.00');
    await admin.getByText('Your request: awaits an approver other than you.').waitFor();
    expect(await admin.getByRole('button', { name: /^(Approve|Reject)/ }).count()).toBe(0);
    await admin.goto(`${system.dashboardUrl}/approvals`);
    await settled(admin, 'Approvals');
    const row = admin.getByRole('row').filter({ hasText: payoutId });
    expect(await row.innerText()).toContain('awaits an approver other than you');
    expect(await row.getByRole('button').count()).toBe(0);

    expect(await forgedPost(admin, `/v1/payouts/${payoutId}/approve`, { actorId: system.members['org-admin'].id })).toEqual({
      status: 403,
      code: 'SELF_APPROVAL_FORBIDDEN',
    });
    expect(await system.api.payouts.get(payoutId)).toMatchObject({ status: 'pending', decidedBy: null });

    // Another member rejects it with a reason: the hold goes back to the wallet.
    const approver = await pageAs('approver');
    await approver.goto(`${system.dashboardUrl}/payouts/${payoutId}`);
    await settled(approver, `Payout ${payoutId}`);
    await approver.getByRole('button', { name: `Reject payout ${payoutId}` }).click();
    const dialog = approver.getByRole('dialog', { name: `Reject payout ${payoutId}` });
    await dialog.getByLabel('Reason').fill('Duplicate of an earlier request');
    await look(approver, 'reject-dialog');
    await dialog.getByRole('button', { name: 'Reject', exact: true }).click();
    await dialog.waitFor({ state: 'hidden' });
    await approver.getByRole('cell', { name: 'Duplicate of an earlier request' }).waitFor();
    expect(await system.api.payouts.get(payoutId)).toMatchObject({
      status: 'rejected',
      rejectionReason: 'Duplicate of an earlier request',
      decidedBy: system.members.approver.id,
    });
  });
});

describe("a case's activity", () => {
  it('shows who requested, who decided and why, and the ledger steps, by name and linked to their entries and audit trail', async () => {
    const request = {
      walletId: system.wallets.spare.id,
      currencyCode: CURRENCY,
      payoutMethod: 'momo' as const,
      destination: { phoneNumber: '+256700000009', network: 'MTN' },
      requestedBy: system.members.operator.id,
    };
    const approved = await system.api.payouts.create({ ...request, amount: '3.00' });
    await system.api.payouts.approve(approved.id, { actorId: system.members.approver.id });
    const rejected = await system.api.payouts.create({ ...request, amount: '4.00' });
    await system.api.payouts.reject(rejected.id, { actorId: system.members.approver.id, reason: 'Wrong number on the slip' });
    const shown = await waitFor(
      async () => {
        const payout = await system.api.payouts.get(approved.id);
        return payout.decisionJournalEntryId !== null ? payout : undefined;
      },
      { timeoutMs: 20_000, what: 'the approval to be posted' },
    );

    const page = await pageAs('org-admin');
    await page.goto(`${system.dashboardUrl}/payouts/${approved.id}`);
    await settled(page, `Payout ${approved.id}`);
    const activity = page.getByRole('region', { name: 'Activity' });
    await activity.getByText('Approved', { exact: true }).waitFor();
    // Names come from one batched read after the case: waited for, not read at once.
    for (const text of ['Requested', 'Held by the ledger', /^By The operator, /, /^By The approver, /])
      await activity.getByText(text, { exact: typeof text === 'string' }).waitFor();
    expect(await activity.getByRole('link', { name: shown.holdJournalEntryId as string }).count()).toBe(1);
    expect(await activity.getByRole('link', { name: shown.decisionJournalEntryId as string }).count()).toBe(1);
    await look(page, 'payout-activity');

    await page.goto(`${system.dashboardUrl}/payouts/${rejected.id}`);
    await settled(page, `Payout ${rejected.id}`);
    await activity.getByText('Because: Wrong number on the slip').waitFor();
    await activity.getByRole('link', { name: "The payout's audit trail" }).click();
    await page.waitForURL((url) => url.pathname === '/audit' && url.searchParams.get('targetId') === rejected.id);
    await settled(page, 'Audit trail');
    await page.getByRole('table').getByText('The approver').first().waitFor();
  });
});

describe('treasury', () => {
  it('records a float deposit and requests a withdrawal of fee revenue from the treasury screen', async () => {
    const operator = await pageAs('operator');
    await operator.goto(`${system.dashboardUrl}/treasury`);
    await settled(operator, 'Treasury');
    await operator.getByRole('button', { name: 'Record a float deposit' }).click();
    const floatDialog = operator.getByRole('dialog', { name: 'Record a float deposit' });
    await floatDialog.getByLabel('Amount').fill('2500.5');
    await floatDialog.getByLabel('Currency').fill(CURRENCY);
    await floatDialog.getByLabel('External reference').fill('BANK-TT-9001');
    await floatDialog.getByRole('button', { name: 'Record deposit' }).click();
    await floatDialog.waitFor({ state: 'hidden' });
    const floatRow = () =>
      operator.getByRole('table', { name: 'Float deposits, newest first' }).getByRole('row').filter({ hasText: 'BANK-TT-9001' });
    await floatRow().waitFor();
    const recorded = await waitFor(
      async () => {
        const [newest] = (await system.api.treasury.floatDeposits.list({ limit: 1 })).data;
        return newest?.journalEntryId ? newest : undefined;
      },
      { timeoutMs: 15_000, what: 'the float deposit entry' },
    );
    expect(recorded).toMatchObject({
      amount: '2500.50',
      externalReference: 'BANK-TT-9001',
      depositedBy: system.members.operator.id,
      status: 'completed',
    });
    await operator.reload();
    await settled(operator, 'Treasury');
    expect(
      await floatRow()
        .getByRole('link', { name: recorded.journalEntryId as string })
        .getAttribute('href'),
    ).toBe(`/journal/${recorded.journalEntryId}`);

    await operator.getByRole('button', { name: 'Request a withdrawal' }).click();
    const withdrawalDialog = operator.getByRole('dialog', { name: 'Request a withdrawal' });
    await withdrawalDialog.getByLabel('Amount').fill('1.5');
    await withdrawalDialog.getByLabel('Currency').fill(CURRENCY);
    await withdrawalDialog.getByLabel('Bank code').fill('STANBIC');
    await withdrawalDialog.getByLabel('Account number').fill('0123456789');
    await withdrawalDialog.getByLabel('Account name').fill('Browser Agents Ltd');
    await look(operator, 'withdrawal-request-dialog');
    await withdrawalDialog.getByRole('button', { name: 'Request withdrawal' }).click();
    await operator.waitForURL(/\/treasury\/withdrawals\/[^/]+$/);
    await settled(operator, /^Withdrawal /);
    const withdrawalId = decodeURIComponent(new URL(operator.url()).pathname.split('/').at(-1) as string);
    await operator.getByText('Your request: awaits an approver other than you.').waitFor();
    await look(operator, 'withdrawal-page');
    expect(await system.api.treasury.withdrawals.get(withdrawalId)).toMatchObject({
      source: 'tenant_fees',
      amount: '1.50',
      payoutMethod: 'bank',
      status: 'pending',
      requestedBy: system.members.operator.id,
    });

    await operator.goto(`${system.dashboardUrl}/treasury`);
    await settled(operator, 'Treasury');
    await operator.getByRole('row').filter({ hasText: withdrawalId }).waitFor();
    await look(operator, 'treasury');
  });
});

describe('treasury lists', () => {
  it('narrow float deposits and withdrawals to a time range, and export what each selects', async () => {
    const page = await pageAs('org-admin');
    await page.goto(`${system.dashboardUrl}/treasury`);
    await settled(page, 'Treasury');
    const withdrawals = page.getByRole('search', { name: 'Filter withdrawals' });
    await withdrawals.getByLabel('Created before').fill('2020-01-01T00:00');
    await withdrawals.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL((url) => url.searchParams.get('withdrawalCreatedTo') === '2019-12-31T21:00:00.000Z');
    await settled(page, 'Treasury');
    expect(await withdrawals.getByRole('link', { name: 'Export CSV' }).getAttribute('href')).toBe(
      `/v1/exports/withdrawals?${new URLSearchParams({ createdTo: '2019-12-31T21:00:00.000Z' }).toString()}`,
    );
    const floats = page.getByRole('search', { name: 'Filter float deposits' });
    const [download] = await Promise.all([page.waitForEvent('download'), floats.getByRole('link', { name: 'Export CSV' }).click()]);
    const exported = (await readFile((await download.path()) as string, 'utf8')).trimEnd().split('\r\n').slice(1);
    const listed = (await system.api.treasury.floatDeposits.list({ limit: 200 })).data;
    expect(listed.length).toBeGreaterThan(0);
    expect(exported.map((row) => row.split(',')[0])).toEqual(listed.map((deposit) => deposit.id));
  });
});

describe('deposits', () => {
  it('verifies a pending bank slip against a statement uploaded as CSV', async () => {
    const wallet = system.wallets.spare;
    const reference = `SLIP-${Date.now().toString(36)}`;
    const slip = await system.api.deposits.submitBankSlip({
      walletId: wallet.id,
      amount: '250.00',
      currencyCode: CURRENCY,
      bankCode: 'STANBIC',
      slipReference: reference,
      depositorName: 'Ada Obi',
    });
    expect(slip.status).toBe('pending');

    const operator = await pageAs('operator');
    await operator.goto(`${system.dashboardUrl}/deposits?status=pending`);
    await settled(operator, 'Deposits');
    await operator.getByRole('row').filter({ hasText: slip.id }).waitFor();
    await operator.getByLabel('Bank code').fill('STANBIC');
    await operator.getByLabel('Currency').fill(CURRENCY);
    const csv = `date,reference,amount,description\n2026-11-20,${reference},250.00,Cash deposit\n2026-11-20,UNRELATED-1,99.99,Other\n`;
    await operator.locator('input[type="file"]').setInputFiles({ name: 'statement.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await operator.getByRole('button', { name: 'Import', exact: true }).click();
    await operator.getByText(/2 lines stored, 0 already imported before/).waitFor();
    // The import's lines, unmatched as yet: both show, narrowed to this import.
    const lines = operator.getByRole('table', { name: 'Statement lines, newest first' });
    await operator.getByText(/^Lines of import bsi_/).waitFor();
    await lines.getByRole('row').filter({ hasText: 'UNRELATED-1' }).filter({ hasText: 'unmatched' }).waitFor();
    await lines.getByRole('row').filter({ hasText: reference }).filter({ hasText: 'unmatched' }).waitFor();
    await look(operator, 'deposits');

    await operator.getByRole('link', { name: slip.id }).click();
    await settled(operator, `Deposit ${slip.id}`);
    await look(operator, 'deposit-page-pending');
    await operator.getByRole('button', { name: 'Verify against the statements' }).click();
    await operator.getByText('completed', { exact: true }).waitFor();
    const verified = await waitFor(
      async () => {
        const deposit = await system.api.deposits.get(slip.id);
        return deposit.journalEntryId !== null ? deposit : undefined;
      },
      { timeoutMs: 15_000, what: 'the credit of the verified slip' },
    );
    expect(verified).toMatchObject({ status: 'completed', verifiedBy: system.members.operator.id });
    await operator.reload();
    await settled(operator, `Deposit ${slip.id}`);
    // Its activity: submitted, verified by the signed-in operator, credited with its entry linked.
    const activity = operator.getByRole('region', { name: 'Activity' });
    expect(await activity.getByRole('link', { name: verified.journalEntryId as string }).getAttribute('href')).toBe(
      `/journal/${verified.journalEntryId}`,
    );
    for (const step of ['Slip submitted', 'Verified against the bank statement', 'Credited by the ledger', /^By You, /])
      await activity.getByText(step, { exact: typeof step === 'string' }).waitFor();
    await look(operator, 'deposit-page-verified');

    // Back on the list, the slip's line is matched to it and the other line is still unmatched.
    await operator.goto(`${system.dashboardUrl}/deposits`);
    await settled(operator, 'Deposits');
    await lines.getByRole('row').filter({ hasText: 'UNRELATED-1' }).waitFor();
    expect(await lines.getByRole('row').filter({ hasText: reference }).count()).toBe(0);
    await operator.getByRole('radiogroup', { name: 'Which lines' }).getByText('Matched', { exact: true }).click();
    const matched = lines.getByRole('row').filter({ hasText: reference });
    await matched.getByRole('link', { name: slip.id }).waitFor();
    expect(await lines.getByRole('row').filter({ hasText: 'UNRELATED-1' }).count()).toBe(0);
  });

  it('reopens a slip verified before its statement arrived, and verifies it once the line is in: no line left unmatched', async () => {
    const reference = `EARLY-${Date.now().toString(36)}`;
    const slip = await system.api.deposits.submitBankSlip({
      walletId: system.wallets.spare.id,
      amount: '75.25',
      currencyCode: CURRENCY,
      bankCode: 'STANBIC',
      slipReference: reference,
    });
    const operator = await pageAs('operator');
    await operator.goto(`${system.dashboardUrl}/deposits/${slip.id}`);
    await settled(operator, `Deposit ${slip.id}`);
    await operator.getByRole('button', { name: 'Verify against the statements' }).click();
    await operator
      .getByRole('table', { name: 'The deposit' })
      .getByText('No imported statement line matched the slip when it was verified')
      .waitFor();
    await operator
      .getByRole('region', { name: 'Activity' })
      .getByText('Because: No imported statement line matched the slip when it was verified')
      .waitFor();

    await system.api.deposits.importStatement({
      bankCode: 'STANBIC',
      currencyCode: CURRENCY,
      lines: [{ date: '2026-11-21', reference, amount: '75.25', description: 'Arrived late' }],
    });
    await operator.getByRole('button', { name: 'Reopen the slip' }).click();
    const dialog = operator.getByRole('dialog', { name: `Reopen deposit ${slip.id}` });
    // Blanks pass the browser's own check of a required field; the contracts' rule says what is wrong in words.
    await dialog.getByLabel('Reason').fill('   ');
    await dialog.getByRole('button', { name: 'Reopen' }).click();
    await dialog.getByText('Required', { exact: true }).waitFor();
    await dialog.getByLabel('Reason').fill('The statement of the 21st has the line');
    await look(operator, 'deposit-reopen-dialog');
    await dialog.getByRole('button', { name: 'Reopen' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await operator.getByRole('button', { name: 'Verify against the statements' }).click();
    await operator.getByText('completed', { exact: true }).waitFor();

    expect(await system.api.deposits.get(slip.id)).toMatchObject({ status: 'completed', verifiedBy: system.members.operator.id });
    const unmatched = await system.api.deposits.statementLines({ matched: 'false' });
    expect(unmatched.data.map((line) => line.reference)).not.toContain(reference);
  });

  it('shows transfers and a transfer with its (empty) reversals', async () => {
    const observer = await pageAs('observer');
    await observer.goto(`${system.dashboardUrl}/transfers?walletId=${system.wallets.busy.id}&status=completed`);
    await settled(observer, 'Transfers');
    const [newest] = (await system.api.transfers.list({ walletId: system.wallets.busy.id, status: 'completed', limit: 1 })).data;
    const link = observer.getByRole('link', { name: newest?.id as string });
    await link.click();
    await settled(observer, `Transfer ${newest?.id}`);
    await observer.getByText('Not reversed').waitFor();
    const activity = observer.getByRole('region', { name: 'Activity' });
    await activity.getByText('Posted by the ledger', { exact: true }).waitFor();
    expect(await activity.getByRole('link', { name: newest?.journalEntryId as string }).getAttribute('href')).toBe(
      `/journal/${newest?.journalEntryId}`,
    );
    expect(await observer.getByText(usd(newest?.amount as string), { exact: true }).count()).toBeGreaterThan(0);
    await look(observer, 'transfer-page');
  });
});

describe('exports', () => {
  /** Every record a list's filters select, walking the API's pages. */
  async function everyTransfer(query: { walletId: string; status: 'completed' }): Promise<string[]> {
    const ids: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await system.api.transfers.list({ ...query, limit: 50, cursor });
      ids.push(...page.data.map((transfer) => transfer.id));
      cursor = page.nextCursor ?? undefined;
    } while (cursor !== undefined);
    return ids;
  }

  it('downloads what the filters on screen select as CSV: every page, exact amounts, UTC times', async () => {
    const page = await pageAs('finance-viewer');
    const filters = { walletId: system.wallets.busy.id, status: 'completed' as const };
    await page.goto(`${system.dashboardUrl}/transfers?${new URLSearchParams(filters).toString()}`);
    await settled(page, 'Transfers');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Export CSV' }).click()]);
    expect(download.suggestedFilename()).toMatch(/^transfers-.*\.csv$/);
    const text = await readFile((await download.path()) as string, 'utf8');
    const [header, ...rows] = text.trimEnd().split('\r\n');
    const columns = (header as string).split(',');
    const cell = (row: string, column: string) => row.split(',')[columns.indexOf(column)] as string;
    // More transfers than a page of the API: the export walked them all, newest first as the list.
    const expected = await everyTransfer(filters);
    expect(expected.length).toBeGreaterThan(50);
    expect(rows.map((row) => cell(row, 'id'))).toEqual(expected);
    const [newest] = (await system.api.transfers.list({ ...filters, limit: 1 })).data;
    expect(cell(rows[0] as string, 'amount')).toBe(newest?.amount);
    expect(cell(rows[0] as string, 'createdAt')).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    // The SDK reads the same export as text.
    expect(await system.api.exports.transfers(filters)).toBe(text);
    await look(page, 'transfers-with-export');
  });

  it('offers the export only to a role that reads the list', async () => {
    const approver = await pageAs('approver');
    await approver.goto(`${system.dashboardUrl}/payouts`);
    await approver.getByRole('link', { name: 'Export CSV' }).waitFor();
    const developer = await pageAs('developer');
    await developer.goto(`${system.dashboardUrl}/payouts`);
    await developer.getByRole('heading', { name: 'Payouts' }).waitFor();
    await developer.getByText('Not part of your role').first().waitFor();
    expect(await developer.getByRole('link', { name: 'Export CSV' }).count()).toBe(0);
  });
});

describe('global search', () => {
  /** Types `text` into the navigation's search box and presses Enter. */
  async function searchFor(page: Page, text: string): Promise<void> {
    const box = page.getByRole('search', { name: 'Search everything' }).getByRole('textbox', { name: 'Search' });
    await box.fill(text);
    await box.press('Enter');
  }

  it('goes from an id, a rail reference or an owner id straight to the record, and lists the deposits of a phone number', async () => {
    const page = await pageAs('finance-viewer');
    const [transfer] = (await system.api.transfers.list({ limit: 1 })).data;
    const deposits = (await system.api.deposits.list({ walletId: system.wallets.busy.id, limit: 5 })).data;
    const deposit = deposits[0];
    if (!transfer || !deposit?.phoneNumber) throw new Error('the seeded tenant has a transfer and a mobile money deposit');
    const opens = [
      [transfer.id, `/transfers/${transfer.id}`, `Transfer ${transfer.id}`],
      [system.wallets.busy.id, `/wallets/${system.wallets.busy.id}`, /^Wallet /],
      [deposit.externalRef, `/deposits/${deposit.id}`, /^Deposit /],
      [system.wallets.busy.ownerId, `/wallets/${system.wallets.busy.id}`, /^Wallet /],
    ] as const;
    for (const [text, path, heading] of opens) {
      await searchFor(page, text);
      await page.waitForURL((url) => url.pathname === path);
      await settled(page, heading);
    }
    // Every deposit of the seeded tenant came from one phone: listed, each linked, the search's rows on top.
    await searchFor(page, deposit.phoneNumber);
    const found = page.getByRole('table', { name: 'What the search found' });
    await found.getByRole('link', { name: deposit.id }).waitFor();
    const sameNumber = (await system.api.deposits.list({ phoneNumber: deposit.phoneNumber, limit: 50 })).data;
    expect(await found.getByRole('row').count()).toBe(sameNumber.length + 1);
    await look(page, 'search-results');
    await searchFor(page, 'tx_0000000000000000000000NONE');
    await page.getByRole('status').filter({ hasText: 'Nothing found for “tx_0000000000000000000000NONE”' }).waitFor();
  });
});

/** The headers of a table whose right edge lies past the window: columns a reader would have to scroll to. */
async function headersOffScreen(page: Page, table: string): Promise<string[]> {
  const width = page.viewportSize()?.width ?? 0;
  const headers = page.getByRole('table', { name: table }).getByRole('columnheader');
  await headers.first().waitFor();
  const off: string[] = [];
  for (const header of await headers.all()) {
    const box = await header.boundingBox();
    if (!box || box.x + box.width > width) off.push(await header.innerText());
  }
  return off;
}

describe('lists at 1440 px', () => {
  it("keeps each list's key columns on the screen: a payout's status, a float deposit's recording, a mismatch's amount and reference", async () => {
    const operator = system.members.operator;
    await system.api.payouts.create({
      walletId: system.wallets.spare.id,
      amount: '12.00',
      currencyCode: CURRENCY,
      payoutMethod: 'bank',
      destination: { bankCode: 'STANBIC', accountNumber: '0123456789012345', accountName: 'Adaeze Chukwuemeka-Okonkwo Trading' },
      requestedBy: operator.id,
    });
    await system.api.treasury.floatDeposits.create({
      amount: '10.00',
      currencyCode: CURRENCY,
      rail: 'bank',
      externalReference: 'A-LONG-BANK-TRANSFER-REFERENCE-0000000001',
      depositedBy: operator.id,
    });
    const reference = `NOBODY-CLAIMED-THIS-${Date.now().toString(36)}`;
    await system.api.deposits.importStatement({
      bankCode: 'STANBIC',
      currencyCode: CURRENCY,
      lines: [{ date: '2026-11-22', reference, amount: '31.40', description: 'A transfer nobody submitted a slip for' }],
    });

    const page = await pageAs('operator');
    await page.goto(`${system.dashboardUrl}/payouts`);
    await settled(page, 'Payouts');
    const payouts = await headersOffScreen(page, 'Payout cases, newest first');
    await page.goto(`${system.dashboardUrl}/treasury`);
    await settled(page, 'Treasury');
    const floats = await headersOffScreen(page, 'Float deposits, newest first');
    // A negative payout clearing (a withdrawal on its way) is explained where the balances are.
    await page.getByText(/^Suspense and payout clearing hold money in transit/).waitFor();
    await page.goto(`${system.dashboardUrl}/reconciliation`);
    await settled(page, 'Reconciliation');
    const evidence = 'Mismatches: Bank statements and slips agree';
    await page.getByRole('table', { name: evidence }).getByRole('row').filter({ hasText: reference }).waitFor();
    const mismatches = await headersOffScreen(page, evidence);
    const keyColumns = { payouts: ['Payout', 'Status', 'Amount'], floats: ['Float deposit', 'Status', 'Recorded', 'Amount'] };
    expect(payouts.filter((header) => keyColumns.payouts.includes(header))).toEqual([]);
    expect(floats.filter((header) => keyColumns.floats.includes(header))).toEqual([]);
    expect(mismatches.filter((header) => ['Problem', 'Amount', 'Reference'].includes(header))).toEqual([]);
    // In words: the problem as a phrase, the columns as headers a person reads.
    const row = page.getByRole('table', { name: evidence }).getByRole('row').filter({ hasText: reference });
    expect(await row.innerText()).toContain('Unmatched statement line');
    expect(await page.getByRole('table', { name: evidence }).getByRole('columnheader').allInnerTexts()).not.toContain('bankCode');
    await look(page, 'reconciliation-mismatches');
  });
});

describe('sorting', () => {
  it('orders transfers by amount either way from its header, pages in that order, and keeps it in the address, the filters and the export', async () => {
    const page = await pageAs('finance-viewer');
    const filters = { walletId: system.wallets.busy.id, status: 'completed' as const };
    await page.goto(`${system.dashboardUrl}/transfers?${new URLSearchParams(filters).toString()}`);
    await settled(page, 'Transfers');
    const header = (name: string) => page.getByRole('columnheader', { name });
    expect([await header('Created').getAttribute('aria-sort'), await header('Amount').getAttribute('aria-sort')]).toEqual([
      'descending',
      'none',
    ]);
    const shown = (caption: string) => page.getByRole('table', { name: caption }).locator('tbody tr td:first-child').allInnerTexts();

    await header('Amount').getByRole('button').click();
    await page.waitForURL(/[?&]sort=-amount/);
    const largest = await system.api.transfers.list({ ...filters, sort: '-amount', limit: 25 });
    await page
      .getByRole('table', { name: 'Transfers, largest amount first' })
      .getByRole('link', { name: largest.data[0]?.id as string })
      .waitFor();
    expect(await shown('Transfers, largest amount first')).toEqual(largest.data.map((transfer) => transfer.id));
    expect(await header('Amount').getAttribute('aria-sort')).toBe('descending');
    const amounts = largest.data.map((transfer) => new BigNumber(transfer.amount));
    expect(amounts.every((amount, index) => index === 0 || amount.lte(amounts[index - 1] as BigNumber))).toBe(true);
    expect(amounts[0]?.gt(amounts.at(-1) as BigNumber)).toBe(true);
    // The next page goes on in the same order.
    await page.getByRole('navigation', { name: 'Transfers, largest amount first pages' }).getByRole('button', { name: 'Next' }).click();
    const second = await system.api.transfers.list({ ...filters, sort: '-amount', limit: 25, cursor: largest.nextCursor ?? undefined });
    await page.getByRole('link', { name: second.data[0]?.id as string }).waitFor();
    expect(await shown('Transfers, largest amount first')).toEqual(second.data.map((transfer) => transfer.id));

    await header('Amount').getByRole('button').click();
    await page.waitForURL(/[?&]sort=amount/);
    const smallest = await system.api.transfers.list({ ...filters, sort: 'amount', limit: 25 });
    await page
      .getByRole('table', { name: 'Transfers, smallest amount first' })
      .getByRole('link', { name: smallest.data[0]?.id as string })
      .waitFor();
    expect(await shown('Transfers, smallest amount first')).toEqual(smallest.data.map((transfer) => transfer.id));
    expect(await page.getByRole('link', { name: 'Export CSV' }).getAttribute('href')).toMatch(/[?&]sort=amount/);
    await look(page, 'transfers-by-amount');

    // Clearing the filters keeps the order; sorting by creation again is the default, and leaves the address.
    await page.getByRole('search', { name: 'Filter transfers' }).getByRole('button', { name: 'Clear' }).click();
    await page.waitForURL((url) => url.searchParams.get('sort') === 'amount' && !url.searchParams.has('walletId'));
    await header('Created').getByRole('button').click();
    await page.waitForURL((url) => !url.searchParams.has('sort'));
    await page.getByRole('table', { name: 'Transfers, newest first' }).waitFor();
  });
});

describe('accessibility', () => {
  // Runs last: every screen above was looked at before the verdict, so one failure lists them all.
  it('finds no serious or critical axe violation on any money screen or dialog', () => {
    expect(violations).toEqual([]);
  });
});
