import { waitFor } from '@wallet/kit/testing';
import type { Locator, Page } from 'playwright-core';
import { axeLog, type DashboardRole, type DashboardSystem, dashboardSuite, documentWidth, PHONE, settled } from './support';

/**
 * Fee schedules edited as drafts and published, in a real Chromium against the real system: an
 * org-admin creates a draft, adds rules (an overlapping band refused with the server's 409 in the
 * dialog), removes one and publishes it as the default; who did each step and when shows on the
 * schedule and in its audit trail. Roles that only read fees see no edit buttons. axe checks
 * every page and dialog at 1440 × 900 and at 390 × 844.
 */

const suite = dashboardSuite('dashboard_fees', { height: 900, locale: 'en-US' });
let system: DashboardSystem;
beforeAll(() => {
  system = suite.system;
});

const { look, violations } = axeLog('fees');
afterEach(() => {
  violations.length = 0;
});

const pageAs = (role: DashboardRole, path: string, viewport?: { width: number; height: number }): Promise<Page> =>
  suite.pageAs(role, viewport, path);
const pageWidth = documentWidth;

function rulesOf(page: Page): Locator {
  return page.getByRole('table', { name: /^Rules/ }).getByRole('row');
}

/** Fills the add-rule dialog (a field left out stays empty) and submits it. */
async function addRule(page: Page, fields: Record<string, string>, name: string): Promise<Locator> {
  await page.getByRole('button', { name: 'Add rule' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add a fee rule' });
  await dialog.getByLabel('Currency').fill('USD');
  for (const [label, value] of Object.entries(fields)) await dialog.getByLabel(label, { exact: true }).fill(value);
  await look(page, name);
  await dialog.getByRole('button', { name: 'Add rule' }).click();
  return dialog;
}

async function createDraft(page: Page, name: string): Promise<string> {
  await page.getByRole('button', { name: 'New draft schedule' }).click();
  const dialog = page.getByRole('dialog', { name: 'New draft fee schedule' });
  await dialog.getByLabel('Name').fill(name);
  await dialog.getByLabel('Make it the default when published').check();
  await look(page, 'new-draft-dialog');
  await dialog.getByRole('button', { name: 'Create draft' }).click();
  await page.waitForURL(/\/fees\/fs_/);
  await settled(page, `Fee schedule ${name}`);
  return new URL(page.url()).pathname.split('/').pop() as string;
}

async function addTwoRulesOneRefused(page: Page): Promise<void> {
  const first = await addRule(page, { 'Amounts up to': '100.00', 'Flat fee': '0.50', Percentage: '1.5' }, 'add-rule-dialog');
  await first.waitFor({ state: 'hidden' });
  const overlapping = await addRule(page, { 'Amounts from': '100', 'Flat fee': '1' }, 'add-rule-filled');
  await overlapping.getByRole('alert').filter({ hasText: 'The band overlaps a rule of this schedule' }).waitFor();
  expect(await overlapping.getByRole('alert').innerText()).toMatch(/OVERLAPPING_FEE_RULE[\s\S]*Correlation id/);
  await look(page, 'add-rule-refused');
  await overlapping.getByLabel('Amounts from', { exact: true }).fill('100.01');
  await overlapping.getByRole('button', { name: 'Add rule' }).click();
  await overlapping.waitFor({ state: 'hidden' });
  await waitFor(async () => ((await rulesOf(page).count()) === 3 ? true : undefined), { what: 'two rules', timeoutMs: 10_000 });
}

async function removeFirstRule(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Remove the transfer rule for any to 100.00 USD' }).click();
  const dialog = page.getByRole('dialog', { name: 'Remove this rule?' });
  await look(page, 'remove-rule-dialog');
  await dialog.getByRole('button', { name: 'Remove rule' }).click();
  await dialog.waitFor({ state: 'hidden' });
  await waitFor(async () => ((await rulesOf(page).count()) === 2 ? true : undefined), { what: 'one rule left', timeoutMs: 10_000 });
}

async function publishAsDefault(page: Page, name: string): Promise<void> {
  await page.getByRole('button', { name: 'Publish', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: `Publish ${name}?` });
  expect(await dialog.innerText()).toContain('can never change');
  expect(await dialog.getByLabel(/Make it the default/).isChecked()).toBe(true);
  await look(page, 'publish-dialog');
  await dialog.getByRole('button', { name: 'Publish as default' }).click();
  await dialog.waitFor({ state: 'hidden' });
  await page.getByText("The tenant's default").waitFor();
}

/** The schedule's audit trail, once all five of its records have reached identity. */
async function auditTrail(page: Page, scheduleId: string): Promise<Locator> {
  await waitFor(async () => ((await system.api.auditEvents.list({ targetId: scheduleId })).data.length >= 5 ? true : undefined), {
    what: 'the five audit records of the schedule',
    timeoutMs: 20_000,
  });
  await page.getByRole('link', { name: "The schedule's audit trail" }).click();
  await page.waitForURL((url) => url.searchParams.get('targetId') === scheduleId);
  await settled(page, 'Audit trail');
  return page.getByRole('table', { name: /Audit events/ }).getByRole('row');
}

it('creates a draft, adds and removes rules, publishes it as the default, with who and when on the schedule and in the audit', async () => {
  const admin = await pageAs('org-admin', '/fees');
  await look(admin, 'fees-page');
  const name = 'Prices 2027';
  const scheduleId = await createDraft(admin, name);
  await look(admin, 'draft-page');
  await addTwoRulesOneRefused(admin);
  await removeFirstRule(admin);
  await publishAsDefault(admin, name);
  await look(admin, 'published-page');
  expect(await admin.getByRole('button', { name: /^(Add rule|Publish|Remove)/ }).count()).toBe(0);

  const shown = await system.api.fees.schedules.get(scheduleId);
  const adminId = system.members['org-admin'].id;
  expect(shown).toMatchObject({ status: 'published', isDefault: true, createdBy: adminId, publishedBy: adminId });
  expect(shown.rules.map((rule) => [rule.minAmount, rule.maxAmount, rule.flatFee, rule.percentageFee])).toEqual([
    ['100.01', null, '1.00', '0'],
  ]);
  const activity = await admin.getByRole('region', { name: 'Activity' }).innerText();
  expect(activity).toMatch(/Created as a draft\s+By You, /);
  expect(activity).toMatch(/Published\s+By You, /);

  const rows = await auditTrail(admin, scheduleId);
  await waitFor(async () => ((await rows.count()) === 6 ? true : undefined), { what: 'the five records', timeoutMs: 10_000 });
  const texts = await rows.allInnerTexts();
  for (const action of ['fee_schedule.created', 'fee_schedule.rule_added', 'fee_schedule.rule_removed', 'fee_schedule.published'])
    expect(texts.some((text) => text.includes(action) && text.includes('You'))).toBe(true);
  await look(admin, 'audit-trail');
  expect(violations).toEqual([]);
});

it('shows a finance-viewer a draft and its rules without edit buttons, and an observer no fee editing at all', async () => {
  const draft = await system.api.fees.schedules.create({ name: 'Read only draft' });
  await system.api.fees.schedules.addRule(draft.id, { transactionType: 'payout', currencyCode: 'USD', flatFee: '2.00' });
  const viewer = await pageAs('finance-viewer', `/fees/${draft.id}`);
  await settled(viewer, 'Fee schedule Read only draft');
  await waitFor(async () => ((await rulesOf(viewer).count()) === 2 ? true : undefined), { what: 'the rule', timeoutMs: 10_000 });
  expect(await viewer.getByRole('button', { name: /^(Add rule|Publish|Remove)/ }).count()).toBe(0);
  expect(await viewer.getByRole('link', { name: /audit trail/ }).count()).toBe(1);
  await look(viewer, 'viewer-draft');
  await viewer.goto(`${system.dashboardUrl}/fees`);
  await settled(viewer, 'Fees');
  expect(await viewer.getByRole('button', { name: 'New draft schedule' }).count()).toBe(0);

  const observer = await pageAs('observer', '/fees');
  await settled(observer, 'Fees');
  expect(await observer.getByRole('button', { name: 'New draft schedule' }).count()).toBe(0);
  await observer.goto(`${system.dashboardUrl}/fees/${draft.id}`);
  await observer.getByText('Not part of your role').waitFor();
  expect(await observer.getByRole('button', { name: /^(Add rule|Publish|Remove)/ }).count()).toBe(0);
  expect(violations).toEqual([]);
});

it('fits every fee page and dialog on a phone (390 × 844)', async () => {
  const draft = await system.api.fees.schedules.create({ name: 'Phone draft' });
  await system.api.fees.schedules.addRule(draft.id, {
    transactionType: 'deposit',
    currencyCode: 'USD',
    maxAmount: '50.00',
    flatFee: '0.25',
  });
  const phone = await pageAs('org-admin', '/fees', PHONE);
  await look(phone, 'phone-fees-page');
  expect(await pageWidth(phone)).toBeLessThanOrEqual(PHONE.width);
  await phone.getByRole('button', { name: 'New draft schedule' }).click();
  await phone.getByRole('dialog', { name: 'New draft fee schedule' }).getByLabel('Name').waitFor();
  await look(phone, 'phone-new-draft-dialog');
  expect(await pageWidth(phone)).toBeLessThanOrEqual(PHONE.width);

  await phone.goto(`${system.dashboardUrl}/fees/${draft.id}`);
  await settled(phone, 'Fee schedule Phone draft');
  await look(phone, 'phone-draft-page');
  expect(await pageWidth(phone)).toBeLessThanOrEqual(PHONE.width);
  const dialogs: Array<[string, string]> = [
    ['Add rule', 'Add a fee rule'],
    ['Remove the deposit rule for any to 50.00 USD', 'Remove this rule?'],
    ['Publish', 'Publish Phone draft?'],
  ];
  for (const [button, title] of dialogs) {
    await phone.getByRole('button', { name: button, exact: true }).click();
    const dialog = phone.getByRole('dialog', { name: title });
    await dialog.getByRole('button', { name: 'Cancel' }).waitFor();
    await look(phone, `phone-${title}`);
    expect(await pageWidth(phone)).toBeLessThanOrEqual(PHONE.width);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
  }
  expect(violations).toEqual([]);
});
