import type { Locator, Page } from 'playwright-core';
import { axeLog, CURRENCY, documentWidth, PHONE, type DashboardRole, type DashboardSystem, dashboardSuite, settled } from './support';

/**
 * Approvals a team runs, in a real Chromium against the real system: an org-admin sets the
 * payouts' approval policy, an approver decides a batch at once (each case checked on its own,
 * each result shown), the cases needing a second approver move to "Awaiting others" for them and
 * to "Awaiting me" for the org-admin, whose approval moves the money. axe checks every view and
 * dialog at 1440 × 900 and at 390 × 844.
 */

const suite = dashboardSuite('dashboard_approvals', { height: 900, locale: 'en-US' });
let system: DashboardSystem;
beforeAll(() => {
  system = suite.system;
});

const { look, violations } = axeLog('approvals');

const pageAs = (role: DashboardRole, viewport?: { width: number; height: number }): Promise<Page> => suite.pageAs(role, viewport);

async function openInbox(page: Page, awaiting: 'me' | 'others' | 'all'): Promise<Locator> {
  await page.goto(`${system.dashboardUrl}/approvals?awaiting=${awaiting}`);
  await settled(page, 'Approvals');
  return page.getByRole('region', { name: 'Payouts awaiting approval' });
}

/** A payout the operator requests through the API: the inbox is what is under test. */
async function requested(amount: string): Promise<string> {
  const shown = await system.api.payouts.create({
    walletId: system.wallets.spare.id,
    amount,
    currencyCode: CURRENCY,
    payoutMethod: 'momo',
    destination: { phoneNumber: '+256700000002', network: 'mtn' },
    requestedBy: system.members.operator.id,
  });
  return shown.id;
}

async function setPolicyInDialog(page: Page): Promise<void> {
  await page.goto(`${system.dashboardUrl}/approvals`);
  await settled(page, 'Approvals');
  await page.getByRole('button', { name: 'Edit the payouts policy' }).click();
  const dialog = page.getByRole('dialog', { name: 'Approval policy of payouts' });
  await dialog.getByRole('button', { name: 'Add a rule' }).click();
  await dialog.getByLabel('Rule 1: currency').fill(CURRENCY);
  await dialog.getByLabel('Rule 1: above amount').fill('100.005');
  await dialog.getByRole('button', { name: 'Save policy' }).click();
  // A finer amount than the currency has is refused, and the dialog says which rule.
  await dialog.getByText(/rules\[0\]\.aboveAmount is not a valid USD amount/).waitFor();
  await dialog.getByLabel('Rule 1: above amount').fill('100.00');
  await look(page, 'policy-dialog');
  await dialog.getByRole('button', { name: 'Save policy' }).click();
  await dialog.waitFor({ state: 'hidden' });
}

it('an org-admin sets a two-approver policy; an approver decides a batch case by case; the org-admin gives the second approval', async () => {
  const admin = await pageAs('org-admin');
  await setPolicyInDialog(admin);
  const policies = admin.getByRole('region', { name: 'Approval policies' });
  await policies.getByRole('cell', { name: '2 different approvers' }).waitFor();
  await policies.getByText('Set by You').waitFor();
  expect(await system.api.payouts.approvalPolicy.get()).toMatchObject({
    rules: [{ currencyCode: CURRENCY, aboveAmount: '100.00', approvalsRequired: 2, approverRole: null }],
    updatedBy: system.members['org-admin'].id,
  });

  const [large, larger, small, taken] = [
    await requested('150.00'),
    await requested('250.00'),
    await requested('40.00'),
    await requested('60.00'),
  ];
  const approver = await pageAs('approver');
  const mine = await openInbox(approver, 'me');
  for (const id of [large, larger, small, taken]) await mine.getByRole('checkbox', { name: `Select payout ${id}` }).check();
  await look(approver, 'inbox-selected');
  // Another checker decides one of them meanwhile: the batch reports it, and goes on.
  await system.api.payouts.reject(taken, { actorId: system.members['org-admin'].id, reason: 'duplicate' });
  await mine.getByRole('button', { name: 'Approve 4 selected' }).click();
  const bulk = approver.getByRole('dialog', { name: 'Approve 4 payout cases' });
  await bulk.getByRole('button', { name: 'Approve 4' }).click();
  const results = bulk.getByRole('list', { name: 'Results' });
  await results.getByRole('listitem').nth(3).waitFor();
  expect(await results.getByRole('listitem').allInnerTexts()).toEqual([
    `${large}: approval 1 of 2 recorded`,
    `${larger}: approval 1 of 2 recorded`,
    `${small}: approved`,
    expect.stringMatching(new RegExp(`^${taken}: refused: .*\\(CASE_NOT_PENDING\\)$`)),
  ]);
  await look(approver, 'bulk-results');
  await bulk.getByRole('button', { name: 'Done' }).click();
  // The sandbox rail may have delivered it already.
  expect(['approved', 'completed']).toContain((await system.api.payouts.get(small)).status);
  expect(await system.api.payouts.get(large)).toMatchObject({ status: 'pending', approvals: [{ actorId: system.members.approver.id }] });

  const others = await openInbox(approver, 'others');
  await others
    .getByRole('row')
    .filter({ hasText: large })
    .getByText('1 of 2 approvals. You approved it: awaits a second approver.')
    .waitFor();
  expect(await (await openInbox(approver, 'me')).getByRole('row').filter({ hasText: large }).count()).toBe(0);

  const adminInbox = await openInbox(admin, 'me');
  await adminInbox.getByRole('button', { name: `Approve payout ${large}` }).click();
  const single = admin.getByRole('dialog', { name: `Approve payout ${large}` });
  await single.getByText('Yours is the last approval its policy asks for').waitFor();
  await look(admin, 'second-approval-dialog');
  await single.getByRole('button', { name: 'Approve' }).click();
  await single.waitFor({ state: 'hidden' });
  const decided = await system.api.payouts.get(large);
  expect(decided).toMatchObject({ decidedBy: system.members['org-admin'].id, decisionJournalEntryId: expect.stringMatching(/^je_/) });
  expect(['approved', 'completed']).toContain(decided.status);

  await admin.goto(`${system.dashboardUrl}/payouts/${large}`);
  await settled(admin, /^Payout /);
  const activity = admin.getByRole('region', { name: 'Activity' });
  await activity.getByText('Approved (1 of 2)').waitFor();
  await activity.getByText('By The approver').waitFor();
  await activity.getByText('By You').waitFor();
  await look(admin, 'payout-two-approvals');
  expect(violations).toEqual([]);
});

it('on a phone, the inbox, its bulk dialog and the policy dialog have no serious or critical axe findings and fit the width', async () => {
  const [first, second] = [await requested('300.00'), await requested('310.00')];
  const approver = await pageAs('approver', PHONE);
  const mine = await openInbox(approver, 'me');
  for (const id of [first, second]) await mine.getByRole('checkbox', { name: `Select payout ${id}` }).check();
  await look(approver, 'phone-inbox');
  await mine.getByRole('button', { name: 'Reject 2 selected' }).click();
  const bulk = approver.getByRole('dialog', { name: 'Reject 2 payout cases' });
  await bulk.getByRole('button', { name: 'Reject 2' }).click();
  await bulk.getByText('Required').waitFor();
  await bulk.getByLabel('Reason').fill('Supplier not on the approved list');
  await look(approver, 'phone-bulk-reject');
  await bulk.getByRole('button', { name: 'Reject 2' }).click();
  await bulk.getByRole('list', { name: 'Results' }).getByRole('listitem').nth(1).waitFor();
  expect(await bulk.getByRole('list', { name: 'Results' }).getByRole('listitem').allInnerTexts()).toEqual([
    `${first}: rejected`,
    `${second}: rejected`,
  ]);

  const admin = await pageAs('org-admin', PHONE);
  await admin.goto(`${system.dashboardUrl}/approvals`);
  await settled(admin, 'Approvals');
  await admin.getByRole('button', { name: 'Edit the payouts policy' }).click();
  await admin.getByRole('dialog', { name: 'Approval policy of payouts' }).getByLabel('Rule 1: currency').waitFor();
  await look(admin, 'phone-policy-dialog');
  for (const page of [approver, admin]) {
    expect(await documentWidth(page)).toBeLessThanOrEqual(PHONE.width);
  }
  expect(violations).toEqual([]);
});
