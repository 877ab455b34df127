import { waitFor } from '@wallet/kit/testing';
import { isWalletApiError, WalletClient } from '@wallet/sdk';
import type { Locator, Page } from 'playwright-core';
import { accessibilityViolations, type DashboardSystem, screenshot, settled, signIn, dashboardSuite } from './support';

/**
 * The team, audit and developer screens in a real Chromium against the real system: role
 * changes and deactivation with the last org-admin kept, the audit trail of them, API keys whose
 * secret is shown once and kept nowhere, and the request logs of refused calls.
 */

const suite = dashboardSuite('dashboard_team', { height: 900 });
let system: DashboardSystem;
beforeAll(() => {
  system = suite.system;
});
const newPage = (): Promise<Page> => suite.newPage();

/** Goes to a screen by its address (the navigation's links are the harness's role tests' concern). */
async function openScreen(page: Page, path: string, heading: string): Promise<void> {
  await page.goto(`${system.dashboardUrl}${path}`);
  await settled(page, heading);
}

/** Picks an option of a Mantine select (its list opens in a portal, outside the dialog). */
async function choose(page: Page, scope: Page | Locator, label: string, option: string): Promise<void> {
  await scope.getByRole('combobox', { name: label }).click();
  await page.getByRole('option', { name: option, exact: true }).click();
}

function rowOf(page: Page, text: string): Locator {
  return page.getByRole('row').filter({ hasText: text });
}

/** The parts of the page's window read below (the tests compile without the DOM's types). */
interface WebStorage {
  readonly length: number;
  key(index: number): string | null;
  getItem(key: string): string | null;
}
interface PageWindow {
  localStorage: WebStorage;
  sessionStorage: WebStorage;
  document: { cookie: string };
}

/** Everything the page holds where a secret could linger: its markup, its web storage, its readable cookies. */
async function pageState(page: Page): Promise<string> {
  const stored = await page.evaluate(() => {
    const window = globalThis as unknown as PageWindow;
    const dump = (storage: WebStorage) =>
      Array.from({ length: storage.length }, (_, index) => `${storage.key(index)}=${storage.getItem(storage.key(index) ?? '')}`).join('\n');
    return `${dump(window.localStorage)}\n${dump(window.sessionStorage)}\n${window.document.cookie}`;
  });
  return `${await page.content()}\n${stored}`;
}

const secretClient = (apiKey: string) => new WalletClient({ baseUrl: system.gatewayUrl, auth: { type: 'secret', apiKey } });

async function refusal(call: Promise<unknown>): Promise<unknown> {
  return call.then(
    () => 'accepted',
    (error: unknown) => error,
  );
}

describe('the team screen', () => {
  it('lets an org-admin add a member, change its role and deactivate it, and keeps the last org-admin', async () => {
    const page = await newPage();
    await signIn(page, system, 'org-admin', '/team');
    await openScreen(page, '/team', 'Team');
    const violations = await accessibilityViolations(page, 'the team screen');
    await screenshot(page, 'team');

    const email = `new-hire-${Date.now()}@example.com`;
    await page.getByRole('button', { name: 'Add member' }).click();
    const addDialog = page.getByRole('dialog', { name: 'Add a team member' });
    await addDialog.getByRole('textbox', { name: 'Name', exact: true }).fill('New Hire');
    await addDialog.getByRole('textbox', { name: 'Email', exact: true }).fill(email);
    await addDialog.getByLabel('First password').fill('a first passphrase to change');
    await choose(page, addDialog, 'Role', 'observer');
    await addDialog.getByRole('button', { name: 'Add member' }).click();
    await addDialog.waitFor({ state: 'hidden' });
    await rowOf(page, email).waitFor();
    const added = (await system.api.team.list({ status: 'active' })).data.find((member) => member.email === email);
    expect(added).toMatchObject({ name: 'New Hire', orgRole: 'observer', status: 'active' });
    if (!added) throw new Error('the member was not added');

    await page.getByRole('button', { name: 'Change role of New Hire' }).click();
    const roleDialog = page.getByRole('dialog', { name: 'Change the role of New Hire' });
    await choose(page, roleDialog, 'Role', 'finance-viewer');
    violations.push(...(await accessibilityViolations(page, 'the change-role dialog')));
    await roleDialog.getByRole('button', { name: 'Change role' }).click();
    await roleDialog.waitFor({ state: 'hidden' });
    await rowOf(page, email).getByText('finance-viewer').waitFor();
    expect((await system.api.team.get(added.id)).orgRole).toBe('finance-viewer');

    await page.getByRole('button', { name: 'Deactivate New Hire' }).click();
    const deactivateDialog = page.getByRole('dialog', { name: 'Deactivate New Hire' });
    await deactivateDialog.getByRole('button', { name: 'Deactivate' }).click();
    await deactivateDialog.waitFor({ state: 'hidden' });
    await rowOf(page, email).getByText('deactivated').waitFor();
    expect((await system.api.team.get(added.id)).status).toBe('deactivated');
    const login = await refusal(
      new WalletClient({ baseUrl: system.gatewayUrl }).auth.login({ email, password: 'a first passphrase to change' }),
    );
    expect(isWalletApiError(login)).toBe(true);

    // The only org-admin deactivating itself: refused, and said so in the dialog.
    const admin = system.members['org-admin'];
    await rowOf(page, admin.email)
      .getByRole('button', { name: /^Deactivate/ })
      .click();
    const lastAdminDialog = page.getByRole('dialog', { name: /^Deactivate/ });
    await lastAdminDialog.getByRole('button', { name: 'Deactivate' }).click();
    const alert = lastAdminDialog.getByRole('alert');
    await alert.waitFor();
    expect(await alert.innerText()).toMatch(/must keep an active org-admin[\s\S]*LAST_ORG_ADMIN[\s\S]*Correlation id/);
    violations.push(...(await accessibilityViolations(page, 'the last org-admin refusal')));
    await screenshot(page, 'team-last-org-admin');
    expect(await system.api.team.get(admin.id)).toMatchObject({ orgRole: 'org-admin', status: 'active' });
    expect(violations).toEqual([]);
  });
});

describe('the audit screen', () => {
  it('finds a role change by its action and shows who changed what, before and after', async () => {
    const operator = system.members.operator;
    await system.api.team.update(operator.id, { orgRole: 'approver' });
    await system.api.team.update(operator.id, { orgRole: 'operator' });

    const page = await newPage();
    await signIn(page, system, 'org-admin', '/audit');
    await openScreen(page, '/audit', 'Audit trail');
    const violations = await accessibilityViolations(page, 'the audit screen');
    await page.getByLabel('Action', { exact: true }).fill('team_member.role_changed');
    await page.getByLabel('Target id', { exact: true }).fill(operator.id);
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL((url) => url.searchParams.get('targetId') !== null);
    await settled(page, 'Audit trail');
    const rows = page.getByRole('table', { name: /Audit events/ }).getByRole('row');
    // A header and the two changes, newest first.
    await waitFor(async () => ((await rows.count()) === 3 ? true : undefined), {
      timeoutMs: 10_000,
      intervalMs: 100,
      what: 'the two role changes',
    });
    await screenshot(page, 'audit');

    await rows
      .nth(1)
      .getByRole('button', { name: /^Details/ })
      .click();
    const details = page.getByRole('dialog', { name: 'team_member.role_changed' });
    const change = details.getByRole('table', { name: 'Fields before and after the action' }).getByRole('row', { name: /orgRole/ });
    // allInnerTexts does not wait: the dialog opens after the click, on a busy machine later.
    await change.waitFor({ timeout: 10_000 });
    expect(await change.getByRole('cell').allInnerTexts()).toEqual(['approver', 'operator']);
    expect(await details.getByRole('table', { name: 'Event', exact: true }).innerText()).toContain(`team_member · ${operator.id}`);
    violations.push(...(await accessibilityViolations(page, 'an audit event')));
    await screenshot(page, 'audit-event');
    expect(violations).toEqual([]);
  });
});

describe('the developers screen', () => {
  it('shows a new key its secret once, keeps it nowhere, rotates it with an overlap and revokes it', async () => {
    const page = await newPage();
    await signIn(page, system, 'developer', '/developers');
    await openScreen(page, '/developers', 'Developers');
    const violations = await accessibilityViolations(page, 'the API keys');

    await page.getByRole('button', { name: 'Create API key' }).click();
    const createDialog = page.getByRole('dialog', { name: 'Create an API key' });
    await createDialog.getByRole('textbox', { name: 'Name', exact: true }).fill('Browser key');
    await createDialog.getByRole('checkbox', { name: 'wallets:read', exact: true }).check();
    violations.push(...(await accessibilityViolations(page, 'the create-key dialog')));
    await createDialog.getByRole('button', { name: 'Create key' }).click();

    const readSecret = async (): Promise<string> => {
      const dialog = page.getByRole('dialog', { name: /^Secret key of Browser key/ });
      const secret = await dialog.getByLabel('Secret key', { exact: true }).inputValue();
      expect(await dialog.innerText()).toMatch(/shown only this once/);
      return secret;
    };
    const firstSecret = await readSecret();
    expect(firstSecret).toMatch(/^sk_live_/);
    violations.push(...(await accessibilityViolations(page, 'the secret shown once')));
    await screenshot(page, 'api-key-secret');
    expect((await secretClient(firstSecret).wallets.list({ limit: 1 })).data).toHaveLength(1);
    // What the checks below read would find the secret while it is shown.
    expect(await pageState(page)).toContain(firstSecret);

    await page.getByRole('button', { name: 'I have stored it' }).click();
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    const row = rowOf(page, 'Browser key');
    await row.waitFor();
    expect(await row.innerText()).toContain(`sk_live_…${firstSecret.slice(-4)}`);
    expect(await pageState(page)).not.toContain(firstSecret);

    await row.getByRole('button', { name: 'Rotate Browser key' }).click();
    const rotateDialog = page.getByRole('dialog', { name: 'Rotate Browser key' });
    await choose(page, rotateDialog, 'The current secret key', 'Works 1 more hour');
    await rotateDialog.getByRole('button', { name: 'Rotate' }).click();
    const secondSecret = await readSecret();
    expect(secondSecret).not.toBe(firstSecret);
    await page.getByRole('button', { name: 'I have stored it' }).click();
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    // The overlap: both secrets work for the hour.
    expect((await secretClient(secondSecret).wallets.list({ limit: 1 })).data).toHaveLength(1);
    expect((await secretClient(firstSecret).wallets.list({ limit: 1 })).data).toHaveLength(1);

    await row.getByRole('button', { name: 'Revoke Browser key' }).click();
    const revokeDialog = page.getByRole('dialog', { name: 'Revoke Browser key' });
    await revokeDialog.getByRole('button', { name: 'Revoke key' }).click();
    await revokeDialog.waitFor({ state: 'hidden' });
    await row.getByText('revoked').waitFor();
    await screenshot(page, 'api-keys');
    for (const secret of [firstSecret, secondSecret]) {
      expect(isWalletApiError(await refusal(secretClient(secret).wallets.list({ limit: 1 })), 'API_KEY_REVOKED')).toBe(true);
    }

    const state = await pageState(page);
    expect(state).not.toContain(firstSecret);
    expect(state).not.toContain(secondSecret);
    expect(violations).toEqual([]);
  });

  it("shows the API's refused calls in the request logs, filtered by status, to a reader of logs without keys", async () => {
    const key = await system.api.apiKeys.create({ name: 'read only', scopes: ['wallets:read'], environment: 'live' });
    const refused = await refusal(
      secretClient(key.key as string).wallets.create({ ownerType: 'user', ownerId: 'not-allowed', currencyCode: 'USD' }),
    );
    expect(isWalletApiError(refused)).toBe(true);
    const logged = await waitFor(
      async () => {
        const page = await system.api.requestLogs.list({ apiKeyId: key.id, status: 403 });
        return page.data.length > 0 ? page.data : undefined;
      },
      { timeoutMs: 15_000, intervalMs: 200, what: 'the refused call in the request logs' },
    );

    const page = await newPage();
    await signIn(page, system, 'finance-viewer', '/developers');
    await openScreen(page, '/developers', 'Developers');
    expect(await page.getByRole('tab').allInnerTexts()).toEqual(['Request logs']);
    await page.getByLabel('Status', { exact: true }).fill('403');
    await page.getByLabel('API key id', { exact: true }).fill(key.id);
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL((url) => url.searchParams.get('status') === '403');
    await settled(page, 'Developers');
    const rows = page.getByRole('table', { name: /Request logs/ }).getByRole('row');
    await rows.nth(1).waitFor();
    expect(await rows.count()).toBe(logged.length + 1);
    expect(await rows.nth(1).innerText()).toMatch(/POST \/v1\/wallets[\s\S]*403/);
    const violations = await accessibilityViolations(page, 'the request logs');
    await screenshot(page, 'request-logs');

    await rows
      .nth(1)
      .getByRole('button', { name: /^Details/ })
      .click();
    const details = page.getByRole('dialog', { name: 'POST /v1/wallets' });
    expect(await details.innerText()).toContain(logged[0]?.correlationId ?? 'no correlation id');
    violations.push(...(await accessibilityViolations(page, 'a request log')));
    expect(violations).toEqual([]);
  });
});
