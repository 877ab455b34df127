import type { Page } from 'playwright-core';
import { randomUUID } from 'node:crypto';
import { axeLog, CURRENCY, documentWidth, PHONE, type DashboardRole, type DashboardSystem, dashboardSuite, settled } from './support';

/**
 * The reconciliation workbench in a real Chromium against the real system: a slip whose
 * statement line the bank wrote with another reference shows as a mismatch, whose link opens the
 * workbench with the line chosen; the operator matches it by hand with a reason, the org-admin
 * approves, the wallet is credited through the ledger and the mismatch is gone. A suggestion of
 * the tenant's rule is proposed and rejected. axe checks the screen and its dialogs at 1440 × 900
 * and at 390 × 844.
 */

const suite = dashboardSuite('dashboard_workbench', { height: 900, locale: 'en-US' });
let system: DashboardSystem;
beforeAll(() => {
  system = suite.system;
});

const { look, violations } = axeLog('workbench');

const pageAs = (role: DashboardRole, viewport?: { width: number; height: number }): Promise<Page> => suite.pageAs(role, viewport);

/** A pending slip and the statement line of its money under the bank's own reference: the line's id. */
async function slipAndLine(amount: string): Promise<{ depositId: string; lineId: string; lineReference: string }> {
  const reference = `SLIP-${randomUUID().slice(0, 6).toUpperCase()}`;
  const slip = await system.api.deposits.submitBankSlip({
    walletId: system.wallets.spare.id,
    amount,
    currencyCode: CURRENCY,
    bankCode: 'stanbic',
    slipReference: reference,
  });
  const lineReference = `TRF ${reference.replace('-', ' ')} MUKASA`;
  await system.api.deposits.importStatement({
    bankCode: 'stanbic',
    currencyCode: CURRENCY,
    lines: [{ date: new Date().toISOString().slice(0, 10), reference: lineReference, amount }],
  });
  const lines = await system.api.deposits.statementLines({ matched: 'false' });
  const line = lines.data.find((each) => each.reference === lineReference);
  if (!line) throw new Error('the imported line is not listed');
  return { depositId: slip.id, lineId: line.id, lineReference };
}

it('a mismatch opens the workbench; a match by hand is proposed with a reason, approved by another member, and credits the slip', async () => {
  const pair = await slipAndLine('321.45');
  const before = (await system.api.wallets.get(system.wallets.spare.id)).balance;
  const operator = await pageAs('operator');
  await operator.goto(`${system.dashboardUrl}/reconciliation`);
  await settled(operator, 'Reconciliation');
  await operator
    .getByRole('link', { name: `Line ${pair.lineId}: resolve` })
    .first()
    .click();
  await settled(operator, 'Reconciliation workbench');
  await operator.getByRole('radio', { name: `Choose line ${pair.lineId}` }).waitFor();
  expect(await operator.getByRole('radio', { name: `Choose line ${pair.lineId}` }).isChecked()).toBe(true);
  await operator.getByRole('radio', { name: `Choose slip ${pair.depositId}` }).check();
  await look(operator, 'chosen');
  await operator.getByRole('button', { name: `Propose match of slip ${pair.depositId} and line ${pair.lineId}` }).click();
  const dialog = operator.getByRole('dialog', { name: 'Propose a match' });
  await dialog.getByLabel('Reason').fill('The bank wrote the reference with the depositor name');
  await look(operator, 'propose-dialog');
  await dialog.getByRole('button', { name: 'Propose' }).click();
  await dialog.waitFor({ state: 'hidden' });
  const queue = operator.getByRole('region', { name: 'Matches awaiting a checker' });
  await queue.getByText('Your proposal: awaits another member.').waitFor();

  const admin = await pageAs('org-admin');
  await admin.goto(`${system.dashboardUrl}/reconciliation/workbench`);
  await settled(admin, 'Reconciliation workbench');
  const adminQueue = admin.getByRole('region', { name: 'Matches awaiting a checker' });
  const row = adminQueue.getByRole('row').filter({ hasText: pair.depositId });
  await row.getByText('The bank wrote the reference with the depositor name').waitFor();
  await look(admin, 'queue');
  await row.getByRole('button', { name: /^Approve match/ }).click();
  await adminQueue.getByText('No matches awaiting a checker').waitFor();

  const deposit = await system.api.deposits.get(pair.depositId);
  expect(deposit).toMatchObject({
    status: 'completed',
    verifiedBy: system.members['org-admin'].id,
    journalEntryId: expect.stringMatching(/^je_/),
  });
  expect((await system.api.wallets.get(system.wallets.spare.id)).balance).not.toBe(before);
  const unmatched = await system.api.deposits.statementLines({ matched: 'false' });
  expect(unmatched.data.map((line) => line.id)).not.toContain(pair.lineId);
  expect(violations).toEqual([]);
});

it('on a phone, a suggestion of the rule is proposed and rejected with a reason; the screen and its dialogs pass axe and fit', async () => {
  await system.api.reconciliation.matchRule.set({ reference: 'contains', dateWindowDays: 3 });
  const pair = await slipAndLine('55.10');
  await system.api.reconciliation.matchRule.set({ reference: 'any', dateWindowDays: 3 });
  const operator = await pageAs('operator', PHONE);
  await operator.goto(`${system.dashboardUrl}/reconciliation/workbench`);
  await settled(operator, 'Reconciliation workbench');
  const suggestions = operator.getByRole('region', { name: 'Suggested by the rule' });
  await suggestions.getByRole('button', { name: `Propose match of slip ${pair.depositId} and line ${pair.lineId}` }).click();
  const dialog = operator.getByRole('dialog', { name: 'Propose a match' });
  await dialog.getByLabel('Reason').fill('Same amount, same day, name in the reference');
  await look(operator, 'phone-propose');
  await dialog.getByRole('button', { name: 'Propose' }).click();
  await dialog.waitFor({ state: 'hidden' });
  await operator.getByRole('region', { name: 'Match rule' }).getByText('Any reference').waitFor();
  await look(operator, 'phone-workbench');

  const admin = await pageAs('org-admin', PHONE);
  await admin.goto(`${system.dashboardUrl}/reconciliation/workbench`);
  await settled(admin, 'Reconciliation workbench');
  const row = admin.getByRole('region', { name: 'Matches awaiting a checker' }).getByRole('row').filter({ hasText: pair.depositId });
  await row.getByRole('button', { name: /^Reject match/ }).click();
  const reject = admin.getByRole('dialog', { name: /^Reject match/ });
  await reject.getByLabel(/Reason/).fill('Not this depositor');
  await look(admin, 'phone-reject');
  await reject.getByRole('button', { name: 'Reject' }).click();
  await reject.waitFor({ state: 'hidden' });
  await admin.getByRole('button', { name: 'Edit the rule' }).click();
  await admin.getByRole('dialog', { name: 'Match rule' }).getByLabel('Date window (days)').waitFor();
  await look(admin, 'phone-rule-dialog');
  expect((await system.api.deposits.get(pair.depositId)).status).toBe('pending');
  const matches = await system.api.reconciliation.matches.list({ status: 'rejected' });
  expect(matches.data.find((match) => match.depositId === pair.depositId)).toMatchObject({ rejectionReason: 'Not this depositor' });
  for (const page of [operator, admin]) {
    expect(await documentWidth(page)).toBeLessThanOrEqual(PHONE.width);
  }
  expect(violations).toEqual([]);
});
