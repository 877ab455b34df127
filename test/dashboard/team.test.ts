import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitFor } from '@wallet/kit/testing';
import { isWalletApiError, verifyWebhook, WalletClient } from '@wallet/sdk';
import type { Locator, Page } from 'playwright-core';
import { signInAt } from '../../scripts/lib/dashboard-browser';
import { accessibilityViolations, cspViolationsOf, type DashboardSystem, screenshot, settled, signIn, dashboardSuite } from './support';

/**
 * The team, audit and developer screens in a real Chromium against the real system: role
 * changes and deactivation with the last org-admin kept, the audit trail of them, API keys whose
 * secret is shown once and kept nowhere, the request logs of refused calls, and a webhook endpoint
 * delivering to a receiver the test runs, with the event log.
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

/** A badge's label as the page measures it (the tests compile without the DOM's types). */
interface BadgeLabel {
  scrollWidth: number;
  clientWidth: number;
  textContent: string | null;
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

describe("a list's filters", () => {
  // Each list's form is keyed by its filters; one sharing its table's key left a stale copy of itself at every change.
  it.each([
    ['/transfers', 'Transfers', 'Filter transfers', ['completed', 'failed', 'pending']],
    ['/payouts', 'Payouts', 'Filter payouts', ['approved', 'rejected', 'pending']],
    ['/deposits', 'Deposits', 'Filter deposits', ['completed', 'rejected', 'pending']],
    ['/team', 'Team', 'Filter team members', ['active', 'deactivated', 'invited']],
  ])('keeps one filter form on %s through three changes of its status', async (path, heading, form, statuses) => {
    const page = await newPage();
    await signIn(page, system, 'org-admin', path);
    await openScreen(page, path, heading);
    for (const status of statuses) {
      await choose(page, page.getByRole('search', { name: form }), 'Status', status);
      await page.getByRole('button', { name: 'Search' }).click();
      await page.waitForURL((url) => url.searchParams.get('status') === status);
      await settled(page, heading);
    }
    expect(await page.getByRole('search', { name: form }).count()).toBe(1);
    expect(await page.getByRole('search', { name: form }).getByRole('combobox', { name: 'Status' }).inputValue()).toBe(statuses.at(-1));
  });

  // The viewer's zone is Africa/Kampala (UTC+3, no daylight saving): a local minute is the instant three hours before it in UTC.
  it.each([
    ['/transfers', 'Transfers', 'Filter transfers', 'No transfer matches these filters.', '/v1/transfers'],
    ['/payouts', 'Payouts', 'Filter payouts', 'No payout matches these filters.', '/v1/payouts/cases'],
    ['/deposits', 'Deposits', 'Filter deposits', 'No deposit matches these filters.', '/v1/deposits'],
    ['/wallets', 'Wallets', 'Filter wallets', 'No wallet matches these filters.', '/v1/wallets'],
  ])(
    'narrows %s to a creation-time range entered in local time and sent as UTC instants',
    async (path, heading, form, noMatch, apiPath) => {
      const page = await newPage();
      await signIn(page, system, 'org-admin', path);
      await openScreen(page, path, heading);
      const filters = page.getByRole('search', { name: form });
      const asked: URLSearchParams[] = [];
      page.on('request', (request) => {
        if (new URL(request.url()).pathname === apiPath) asked.push(new URL(request.url()).searchParams);
      });
      await filters.getByLabel('Created from').fill('2019-06-01T08:30');
      await filters.getByLabel('Created before').fill('2020-01-01T00:00');
      await page.getByRole('button', { name: 'Search' }).click();
      await page.waitForURL((url) => url.searchParams.get('createdTo') === '2019-12-31T21:00:00.000Z');
      await page.getByText(noMatch).waitFor();
      if (path === '/transfers') expect(await accessibilityViolations(page, 'a filter form with a time range')).toEqual([]);
      expect(asked.map((query) => [query.get('createdFrom'), query.get('createdTo')])).toContainEqual([
        '2019-06-01T05:30:00.000Z',
        '2019-12-31T21:00:00.000Z',
      ]);
      // The range shows in local time again when the address is opened afresh.
      await page.reload();
      await settled(page, heading);
      expect(await filters.getByLabel('Created from').inputValue()).toBe('2019-06-01T08:30');
    },
  );

  it('finds the newest transfer and wallet in a range around their creation, and refuses a range that is no date', async () => {
    const page = await newPage();
    await signIn(page, system, 'org-admin', '/transfers');
    const [transfer] = (await system.api.transfers.list({ limit: 1 })).data;
    const [wallet] = (await system.api.wallets.list({ limit: 1 })).data;
    for (const [path, heading, record] of [
      ['/transfers', 'Transfers', transfer?.id],
      ['/wallets', 'Wallets', wallet?.id],
    ] as const) {
      const created = Date.parse((path === '/transfers' ? transfer?.createdAt : wallet?.createdAt) as string);
      const range = new URLSearchParams({
        createdFrom: new Date(created - 60_000).toISOString(),
        createdTo: new Date(created + 60_000).toISOString(),
      });
      await openScreen(page, `${path}?${range.toString()}`, heading);
      await page.getByRole('link', { name: record as string }).waitFor();
    }
    // A range typed by hand that is no date is said in words, inside the frame, with the way back.
    await page.goto(`${system.dashboardUrl}/transfers?createdFrom=yesterday`);
    const refusal = page.getByRole('status').filter({ hasText: 'The filters in this address cannot be used' });
    await refusal.getByText('Created from: Must be a date and time').waitFor();
    expect(await page.getByRole('navigation').getByRole('link', { name: 'Transfers' }).count()).toBe(1);
    expect(await accessibilityViolations(page, 'unusable filters')).toEqual([]);
    await refusal.getByRole('link', { name: 'Show the list without filters' }).click();
    await page.waitForURL((url) => url.pathname === '/transfers' && url.search === '');
    await settled(page, 'Transfers');
  });

  it('keeps a value typed into the address as text: /wallets?ownerId=123 filters by the owner id "123"', async () => {
    const page = await newPage();
    await signIn(page, system, 'org-admin', '/wallets');
    const asked: string[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname === '/v1/wallets') asked.push(new URL(request.url()).search);
    });
    await openScreen(page, '/wallets?ownerId=123', 'Wallets');
    expect(await page.getByRole('search', { name: 'Filter wallets' }).getByLabel('Owner id').inputValue()).toBe('123');
    await page.getByText('No wallet matches these filters.').waitFor();
    expect(asked.map((search) => new URLSearchParams(search).get('ownerId'))).toContain('123');
    // Applied from the form, the value keeps the address as typed, with no quotes around it.
    await page.getByRole('search', { name: 'Filter wallets' }).getByLabel('Owner id').fill('0042');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL((url) => url.search === '?ownerId=0042');
  });

  it('keeps one filter form on /audit through three changes of its actor', async () => {
    const page = await newPage();
    await signIn(page, system, 'org-admin', '/audit');
    await openScreen(page, '/audit', 'Audit trail');
    for (const actor of ['usr_a', 'usr_b', 'usr_c']) {
      await page.getByLabel('Actor id').fill(actor);
      await page.getByRole('button', { name: 'Search' }).click();
      await page.waitForURL((url) => url.searchParams.get('actorId') === actor);
      await settled(page, 'Audit trail');
    }
    expect(await page.getByRole('search', { name: 'Filter audit events' }).count()).toBe(1);
  });
});

describe('status badges', () => {
  /** The badges on the page whose text is cut (an ellipsis where a status should be). */
  const cutBadges = (page: Page): Promise<string[]> =>
    page.evaluate(() => {
      const labels = [
        ...(globalThis as unknown as { document: { querySelectorAll(selector: string): Iterable<BadgeLabel> } }).document.querySelectorAll(
          '.mantine-Badge-label',
        ),
      ];
      return labels.filter((label) => label.scrollWidth > label.clientWidth).map((label) => label.textContent ?? '');
    });

  it.each([
    ['/transfers', 'Transfers'],
    ['/payouts', 'Payouts'],
    ['/deposits', 'Deposits'],
    ['/developers', 'Developers'],
  ])('shows every status on %s whole at 1440 px, not cut to its first letters', async (path, heading) => {
    const page = await newPage();
    await page.setViewportSize({ width: 1440, height: 900 });
    await signIn(page, system, 'org-admin', path);
    await openScreen(page, path, heading);
    expect(await page.locator('.mantine-Badge-label').count()).toBeGreaterThan(0);
    expect(await cutBadges(page)).toEqual([]);
  });
});

describe('the team screen', () => {
  it('invites a member, whose copied link (the newest of two) opened in a fresh browser sets a password, and who then signs in', async () => {
    const page = await newPage();
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: system.dashboardUrl });
    await signIn(page, system, 'org-admin', '/team');
    await openScreen(page, '/team', 'Team');

    const email = `invitee-${Date.now()}@example.com`;
    await page.getByRole('button', { name: 'Invite member' }).click();
    const inviteDialog = page.getByRole('dialog', { name: 'Invite a team member' });
    await inviteDialog.getByRole('textbox', { name: 'Name', exact: true }).fill('Ivy Invitee');
    await inviteDialog.getByRole('textbox', { name: 'Email', exact: true }).fill(email);
    await choose(page, inviteDialog, 'Role', 'operator');
    expect(await inviteDialog.getByLabel(/password/i).count()).toBe(0);
    const violations = await accessibilityViolations(page, 'the invite dialog');
    await inviteDialog.getByRole('button', { name: 'Invite member' }).click();
    await inviteDialog.waitFor({ state: 'hidden' });

    // The browser suites' system has no mail server: the link is shown, this once, to copy.
    const result = page.getByRole('dialog', { name: 'Invitation for Ivy Invitee' });
    await result.getByText('No e-mail was sent: copy the link now').waitFor();
    violations.push(...(await accessibilityViolations(page, 'the invite result')));
    await screenshot(page, 'team-invite-link');
    await result.getByRole('button', { name: 'Copy' }).click();
    await result.getByRole('button', { name: 'Copied' }).waitFor();
    const link = await page.evaluate(() =>
      (globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }).navigator.clipboard.readText(),
    );
    expect(link).toBe(await result.getByRole('textbox', { name: 'Invitation link' }).inputValue());
    const [address, token] = link.split('?token=');
    expect(address).toBe(`${system.dashboardUrl}/accept-invite`);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    await result.getByRole('button', { name: 'Done' }).click();
    await result.waitFor({ state: 'hidden' });
    await rowOf(page, email).getByText('invited', { exact: true }).waitFor();
    // Gone with its dialog: the page keeps the link nowhere.
    expect(await pageState(page)).not.toContain(token);

    // A new invitation: a new link, and the first one no longer works.
    await rowOf(page, email).getByRole('button', { name: 'Resend invite to Ivy Invitee' }).click();
    await page
      .getByRole('dialog', { name: 'Send Ivy Invitee a new invitation' })
      .getByRole('button', { name: 'Send new invitation' })
      .click();
    await result.getByText('No e-mail was sent: copy the link now').waitFor();
    violations.push(...(await accessibilityViolations(page, 'the new invitation')));
    const newLink = await result.getByRole('textbox', { name: 'Invitation link' }).inputValue();
    expect(newLink).not.toBe(link);
    await result.getByRole('button', { name: 'Done' }).click();

    const invitee = await newPage();
    const password = 'the invitee chose this passphrase';
    const accept = async (address: string) => {
      await invitee.goto(address);
      await invitee.getByRole('heading', { level: 1, name: 'Accept your invitation' }).waitFor();
      await invitee.getByLabel('New password').fill(password);
      await invitee.getByLabel('Repeat the password').fill(password);
      await invitee.getByRole('button', { name: 'Set password and sign in' }).click();
    };
    await accept(link);
    await invitee.getByRole('alert').filter({ hasText: 'This invitation cannot be used' }).waitFor();
    await accept(newLink);
    await invitee.getByRole('navigation', { name: 'Main' }).waitFor();
    const invited = (await system.api.team.list({ status: 'active' })).data.find((member) => member.email === email);
    expect(invited).toMatchObject({ name: 'Ivy Invitee', orgRole: 'operator', status: 'active' });

    // And the password it chose is its login, in another fresh browser.
    const later = await newPage();
    await signInAt(later, system.dashboardUrl, { email, password });
    await settled(later);
    expect(violations).toEqual([]);
  });

  it("changes a member's role and deactivates it, and keeps the last org-admin", async () => {
    const email = `new-hire-${Date.now()}@example.com`;
    const added = await system.api.team.create({ name: 'New Hire', email, password: 'a first passphrase to change', orgRole: 'observer' });
    const page = await newPage();
    await signIn(page, system, 'org-admin', '/team');
    await openScreen(page, '/team', 'Team');
    const violations = await accessibilityViolations(page, 'the team screen');
    await screenshot(page, 'team');
    await rowOf(page, email).waitFor();

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
    // People by name, not by usr_ id: the member whose role changed.
    const event = await details.getByRole('table', { name: 'Event', exact: true }).innerText();
    expect(event).toMatch(/Target\s+The operator\s+team member/);
    expect(event).not.toContain(operator.id);
    expect(await rows.nth(1).innerText()).toContain('The operator');
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
    // ledger:read covers events:read: the event log, but neither keys nor endpoints.
    expect(await page.getByRole('tab').allInnerTexts()).toEqual(['Events', 'Request logs']);
    await page.getByRole('tab', { name: 'Request logs' }).click();
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

interface Receiver {
  url: string;
  /** The signing secret the screen showed: each delivery is answered 200 when it verifies with it, 401 otherwise. */
  secret: string;
  /** The event ids of the deliveries that verified, in their order. */
  verified: string[];
  close(): Promise<void>;
}

/** A webhook receiver on 127.0.0.1, as a tenant's backend would run one, verifying each delivery with the SDK. */
async function startReceiver(): Promise<Receiver> {
  const receiver = { secret: '', verified: [] as string[] };
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      try {
        const event = verifyWebhook(Buffer.concat(chunks).toString('utf8'), request.headers, receiver.secret);
        receiver.verified.push(event.id);
        response.writeHead(200, { 'content-type': 'text/plain' }).end('received by the browser test');
      } catch {
        response.writeHead(401, { 'content-type': 'text/plain' }).end('signature not verified');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(receiver, {
    url: `http://127.0.0.1:${port}/hooks/wallet`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}

/** What `GET path` answers the page's session, as its text: what the screen must show exactly. */
async function answerText(page: Page, path: string): Promise<string> {
  const answer = await page.request.get(`${system.dashboardUrl}${path}`);
  expect(answer.status()).toBe(200);
  return answer.text();
}

/** The event page's JSON is the API's answer laid out with indentation, every token as it came. */
async function expectEventJson(page: Page, eventId: string): Promise<string> {
  await settled(page, `Event ${eventId}`);
  const shown = await page.locator('pre').innerText();
  expect(shown).toBe(JSON.stringify(JSON.parse(await answerText(page, `/v1/events/${eventId}`)), null, 2));
  return shown;
}

/** Adds the endpoint through the screen after two refusals: a URL the form's schema refuses, and a host the server cannot resolve (422). */
async function addEndpoint(page: Page, receiver: Receiver, violations: string[]): Promise<string> {
  await page.getByRole('button', { name: 'Add endpoint' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add a webhook endpoint' });
  const url = dialog.getByRole('textbox', { name: 'URL', exact: true });
  await url.fill('not a url');
  await dialog.getByRole('button', { name: 'Add endpoint' }).click();
  // Said in words, not in zod's "Invalid URL".
  await dialog.getByText('Must be a web address (https://…)', { exact: true }).waitFor();
  // The listener allows private addresses here, so the server's refusal shown is of a name that does not resolve.
  await url.fill('https://hooks.example.invalid/wallet');
  await dialog.getByRole('button', { name: 'Add endpoint' }).click();
  const alert = dialog.getByRole('alert');
  await alert.waitFor({ timeout: 30_000 });
  expect(await alert.innerText()).toMatch(
    /Could not add the endpoint[\s\S]*does not resolve[\s\S]*WEBHOOK_URL_NOT_ALLOWED[\s\S]*Correlation id/,
  );
  violations.push(...(await accessibilityViolations(page, 'the add-endpoint dialog with a refusal')));
  await url.fill(receiver.url);
  await dialog.getByRole('textbox', { name: 'Description' }).fill('The browser test');
  await dialog.getByRole('button', { name: 'Add endpoint' }).click();

  const secretDialog = page.getByRole('dialog', { name: `Signing secret of ${receiver.url}` });
  const secret = await secretDialog.getByLabel('Signing secret', { exact: true }).inputValue();
  expect(secret).toMatch(/^whsec_/);
  expect(await secretDialog.innerText()).toMatch(/shown only this once/);
  await page.getByRole('button', { name: 'I have stored it' }).click();
  await page.getByRole('dialog').waitFor({ state: 'detached' });
  expect(await pageState(page)).not.toContain(secret);
  return secret;
}

describe('webhooks and the event log', () => {
  it('adds an endpoint, its secret shown once, delivers a test event it verifies, replays it, and shows the event in the log', async () => {
    const receiver = await startReceiver();
    try {
      const startedAt = Date.now();
      const page = await newPage();
      await signIn(page, system, 'developer', '/developers?tab=webhooks');
      await page.getByText('No webhook endpoints').waitFor();
      const violations: string[] = [];
      receiver.secret = await addEndpoint(page, receiver, violations);
      const endpointRow = rowOf(page, receiver.url);
      await endpointRow.getByText('enabled').waitFor();
      expect(await endpointRow.innerText()).toMatch(/The browser test[\s\S]*All events/);

      await endpointRow.getByRole('link', { name: receiver.url }).click();
      await settled(page, /^Webhook endpoint we_/);
      await page.getByRole('button', { name: `Send test to ${receiver.url}` }).click();
      const testDialog = page.getByRole('dialog', { name: `Send a test event to ${receiver.url}` });
      await testDialog.getByRole('button', { name: 'Send test event' }).click();
      const eventId = await testDialog.getByRole('link', { name: /^ev_/ }).innerText();
      await testDialog.getByRole('button', { name: 'Done' }).click();
      await testDialog.waitFor({ state: 'hidden' });

      // The table reads itself again while a delivery is pending: the receiver's 200 shows without a reload.
      const delivery = rowOf(page, eventId);
      await delivery.getByText('succeeded').waitFor({ timeout: 30_000 });
      expect(receiver.verified).toEqual([eventId]);
      expect(await delivery.innerText()).toMatch(/webhook_endpoint\.test[\s\S]*succeeded[\s\S]*1 attempt\s*200\s*\d+ ms/i);
      await delivery.getByRole('button', { name: '1 attempt' }).click();
      await delivery.getByText('received by the browser test').waitFor();
      violations.push(...(await accessibilityViolations(page, 'the endpoint with its deliveries')));
      await screenshot(page, 'webhook-endpoint');

      await delivery.getByRole('button', { name: `Replay ${eventId}` }).click();
      await page
        .getByRole('dialog', { name: `Replay ${eventId}` })
        .getByRole('button', { name: 'Replay event' })
        .click();
      await delivery.getByRole('button', { name: '2 attempts' }).waitFor({ timeout: 30_000 });
      expect(receiver.verified).toEqual([eventId, eventId]);
      await page.getByLabel('Failed since').fill('2026-01-01T00:00');
      await page.getByRole('button', { name: 'Replay failed' }).click();
      await page.getByText('No failed delivery since then: nothing to replay.').waitFor();

      await delivery.getByRole('link', { name: eventId }).click();
      expect(await expectEventJson(page, eventId)).toContain('"type": "webhook_endpoint.test"');
      violations.push(...(await accessibilityViolations(page, 'an event')));

      await page.getByRole('link', { name: 'The event log' }).click();
      await settled(page, 'Developers');
      await choose(page, page, 'Types', 'webhook_endpoint.test');
      await page.keyboard.press('Escape');
      // The context's zone is Kampala's, three hours ahead of UTC all year.
      await page.getByLabel('From', { exact: true }).fill(new Date(startedAt - 60_000 + 3 * 3_600_000).toISOString().slice(0, 16));
      await page.getByRole('button', { name: 'Search' }).click();
      await page.waitForURL((url) => url.searchParams.get('createdFrom') !== null);
      await settled(page, 'Developers');
      const events = page.getByRole('table', { name: 'Events, newest first' }).getByRole('row');
      await events.nth(1).waitFor();
      expect(await events.count()).toBe(2);
      expect(await events.nth(1).innerText()).toContain(eventId);
      violations.push(...(await accessibilityViolations(page, 'the event log')));
      await screenshot(page, 'events');

      // Without filters, the seeded transfers' events run to more pages than one; a transfer's amount stays its string.
      await page.getByRole('button', { name: 'Clear' }).click();
      await page.getByRole('button', { name: 'Next' }).click();
      await page.getByText('Page 2').waitFor();
      // The first page stays on screen, busy, until the second arrives.
      await page.locator('table[aria-busy="false"]').waitFor();
      const transferEvent = page
        .getByRole('table', { name: 'Events, newest first' })
        .getByRole('row')
        .filter({ hasText: 'transfer.completed' })
        .first();
      const transferEventId = await transferEvent.getByRole('link', { name: /^ev_/ }).innerText();
      await transferEvent.getByRole('link', { name: transferEventId }).click();
      expect(await expectEventJson(page, transferEventId)).toMatch(/"amount": "\d+\.\d{2}"/);
      expect(violations).toEqual([]);
      expect(cspViolationsOf(page)).toEqual([]);
    } finally {
      await receiver.close();
    }
  });
});
