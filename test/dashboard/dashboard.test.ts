import BigNumber from 'bignumber.js';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import {
  auditRoutes,
  hasScope,
  PAGE_LIMIT_MAX,
  requestLogRoutes,
  ROLE_SCOPES,
  type statementLineSchema,
  type Wallet,
} from '@wallet/contracts';
import { isWalletApiError } from '@wallet/sdk';
import type { Page, Response } from 'playwright-core';
import type { z } from 'zod';
import { NAVIGATION } from '../../apps/dashboard/src/app/navigation';
import { freePort } from '@wallet/kit/testing';
import {
  accessibilityViolations,
  cspViolationsOf,
  CURRENCY,
  documentWidth,
  PHONE,
  DASHBOARD_ROLES,
  type DashboardRole,
  type DashboardSystem,
  screenshot,
  settled,
  signIn,
  dashboardSuite,
} from './support';

/**
 * The dashboard in a real Chromium against the real system (test/dashboard/support.ts): what
 * each role sees, sessions ending, a freeze, the statement export, and cross-site requests.
 */
type StatementLine = z.infer<typeof statementLineSchema>;

const suite = dashboardSuite('dashboard_browser', { height: 900 });
let system: DashboardSystem;
beforeAll(() => {
  system = suite.system;
});
const newPage = (): Promise<Page> => suite.newPage();

function mainNavigation(page: Page) {
  return page.getByRole('navigation', { name: 'Main' });
}

async function onLoginPage(page: Page): Promise<void> {
  await page.waitForURL((url) => url.pathname === '/login');
  await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
}

/** The screens a role's scopes let it read, by the routes each screen declares and the contracts' scope rules. */
function expectedScreens(role: DashboardRole): string[] {
  return NAVIGATION.filter((item) =>
    item.reads.some((route) => route.surface === 'tenant' && hasScope(ROLE_SCOPES[role], route.scope)),
  ).map((item) => item.label);
}

/** Every line of a wallet's statement through the API, in its order, walking pages of `limit`. */
async function statementThroughApi(
  walletId: string,
  limit: number,
  period: { createdFrom?: string; createdTo?: string } = {},
): Promise<StatementLine[]> {
  const lines: StatementLine[] = [];
  let cursor: string | undefined;
  do {
    const page = await system.api.wallets.entries(walletId, { ...period, limit, ...(cursor ? { cursor } : {}) });
    lines.push(...page.data);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return lines;
}

async function transferFrom(wallet: Wallet, amount: string): Promise<unknown> {
  return system.api.transfers
    .create({ fromWalletId: wallet.id, toWalletId: system.wallets.counterpart.id, amount, currencyCode: CURRENCY })
    .catch((error: unknown) => error);
}

/**
 * Who reads the records of who did what (least privilege, written out apart from the scope
 * rules): the audit trail is the org-admin's and the finance viewer's, the request logs theirs and
 * the developer's. The umbrella of reads once gave them to every role that holds the journal.
 */
const RECORD_READS: Record<DashboardRole, { audit: number; requestLogs: number }> = {
  'org-admin': { audit: 200, requestLogs: 200 },
  'finance-viewer': { audit: 200, requestLogs: 200 },
  developer: { audit: 403, requestLogs: 200 },
  operator: { audit: 403, requestLogs: 403 },
  approver: { audit: 403, requestLogs: 403 },
  observer: { audit: 403, requestLogs: 403 },
};

describe('what each role sees', () => {
  /** Screens axe has checked: each once, by the first role that reaches it (axe takes most of these tests' time). */
  const checked = new Set<string>();
  const reviewOnce = async (page: Page, screen: string, name: string): Promise<string[]> => {
    if (checked.has(screen)) return [];
    checked.add(screen);
    return accessibilityViolations(page, name);
  };

  it.each(DASHBOARD_ROLES)(
    '%s: exactly the screens its scopes allow, every screen accessible, nothing its CSP blocks',
    async (role) => {
      const page = await newPage();
      await signIn(page, system, role);
      const expected = expectedScreens(role);
      // Each link's first line: the inbox's may carry its count of pending cases.
      const links = await mainNavigation(page).getByRole('link').allInnerTexts();
      expect(links.map((text) => text.split('\n')[0]?.trim())).toEqual(expected);

      // The server agrees: a listed screen's reads answer this member, a hidden one's refuse it.
      for (const item of NAVIGATION) {
        const statuses = await Promise.all(
          item.reads.map(async (route) => (await page.request.get(`${system.dashboardUrl}${route.path}`)).status()),
        );
        expect({ screen: item.label, anyAllowed: statuses.includes(200) }).toEqual({
          screen: item.label,
          anyAllowed: expected.includes(item.label),
        });
      }

      const status = async (path: string) => (await page.request.get(`${system.dashboardUrl}${path}`)).status();
      expect({ audit: await status(auditRoutes.list.path), requestLogs: await status(requestLogRoutes.list.path) }).toEqual(
        RECORD_READS[role],
      );

      // Every screen is visited before the accessibility verdict, so one failure lists them all.
      const violations: string[] = [];
      for (const label of expected) {
        await mainNavigation(page).getByRole('link', { name: label }).click();
        await settled(page, label);
        violations.push(...(await reviewOnce(page, label, `${label} (${role})`)));
        await screenshot(page, `${role}-${label}`);
      }
      if (expected.includes('Wallets')) {
        const wallet = system.wallets.busy;
        await mainNavigation(page).getByRole('link', { name: 'Wallets' }).click();
        await settled(page, 'Wallets');
        await page.getByRole('link', { name: wallet.id }).click();
        await settled(page, `Wallet ${wallet.id}`);
        expect(await page.getByRole('button', { name: 'Freeze wallet' }).count()).toBe(
          hasScope(ROLE_SCOPES[role], 'wallets:manage') ? 1 : 0,
        );
        violations.push(...(await reviewOnce(page, 'the wallet page', `the wallet page (${role})`)));
        await screenshot(page, `${role}-wallet`);
      }
      expect(violations).toEqual([]);
      // The login page and every screen visited (their lazy chunks, the charts' among them) ran without tripping the CSP.
      expect(cspViolationsOf(page)).toEqual([]);
      // The org-admin's run reviews every screen with axe: well over a minute on a busy machine.
    },
    240_000,
  );
});

it('finds serious violations where there are some: the accessibility check really runs', async () => {
  const page = await newPage();
  await page.setContent(
    `<!doctype html><html lang="en"><title>Bad</title><main><p style="color:#bbb;background:#fff">Faint text</p><button></button><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw="></main></html>`,
  );
  const violations = await accessibilityViolations(page, 'a bad page');
  expect(violations.map((violation) => /^a bad page: (\w+) ([\w-]+),/.exec(violation)?.slice(1, 3).join(' ')).sort()).toEqual([
    'critical button-name',
    'critical image-alt',
    'serious color-contrast',
  ]);
});

describe('addresses and roles, said in words', () => {
  it('shows an address no screen has as "Page not found" inside the frame, with the navigation and a way back', async () => {
    const page = await newPage();
    await signIn(page, system, 'observer', '/no-such-screen/at-all');
    await page.getByRole('heading', { level: 1, name: 'Page not found' }).waitFor();
    await mainNavigation(page).getByRole('link', { name: 'Wallets' }).waitFor();
    await page.getByRole('main').getByRole('link', { name: 'Go to the overview' }).click();
    await settled(page, 'Overview');
    expect(await accessibilityViolations(page, 'page not found')).toEqual([]);
  });

  it('says a screen outside the role is not part of it, in words and not as a failure', async () => {
    const page = await newPage();
    await signIn(page, system, 'observer');
    await page.goto(`${system.dashboardUrl}/audit`);
    await page.getByText('Not part of your role').waitFor();
    expect(await page.getByRole('main').innerText()).toContain('Your role does not include reading the audit trail.');
    expect(await page.getByRole('alert').count()).toBe(0);
    expect(await page.getByRole('main').innerText()).not.toContain('audit:read');
  });
});

describe("the overview's chart", () => {
  it('has every UTC day of the range, quiet days included, and says its days are UTC days', async () => {
    const page = await newPage();
    await signIn(page, system, 'finance-viewer');
    const chart = page.getByRole('img', { name: /^Daily volume and fee revenue in USD/ });
    await chart.waitFor();
    const label = (await chart.getAttribute('aria-label')) ?? '';
    // The default range is the last 30 UTC days; the tenant was seeded today, so 29 of them are quiet.
    const [, first, last] = /, 30 UTC days from (\d{4}-\d{2}-\d{2}) to (\d{4}-\d{2}-\d{2})$/.exec(label) ?? [];
    expect({ label, last }).toEqual({ label, last: new Date().toISOString().slice(0, 10) });
    expect(Date.parse(last as string) - Date.parse(first as string)).toBe(29 * 86_400_000);
    await chart.getByText('Day (UTC)').waitFor();
  });
});

describe('on a phone (390 × 844)', () => {
  it('keeps the header to one line, clear of the page title, and no id widens the page', async () => {
    const phone = PHONE;
    const page = await suite.newPage(phone);
    const [deposit] = (await system.api.deposits.list({ limit: 1 })).data;
    await signIn(page, system, 'operator', `/deposits/${deposit?.id}`);
    const title = page.getByRole('heading', { level: 1, name: `Deposit ${deposit?.id}` });
    await settled(page, `Deposit ${deposit?.id}`);
    const signOut = await page.getByRole('button', { name: 'Sign out' }).boundingBox();
    const heading = await title.boundingBox();
    expect(signOut && heading && signOut.y + signOut.height <= heading.y).toBe(true);
    expect(await documentWidth(page)).toBeLessThanOrEqual(phone.width);
    expect(await accessibilityViolations(page, 'a deposit on a phone')).toEqual([]);
  });
});

describe('every screen on a phone (390 × 844)', () => {
  it("passes axe, and no screen is wider than the phone: the navigation's screens, the menu with its search, a statement's period, a case's activity", async () => {
    const phone = PHONE;
    const page = await suite.newPage(phone);
    await signIn(page, system, 'org-admin', '/');
    const [payout] = (await system.api.payouts.list({ limit: 1 })).data;
    const paths = [
      ...NAVIGATION.map((item) => [item.to, item.label] as const),
      [`/wallets/${system.wallets.busy.id}?createdFrom=2026-01-01T00:00:00.000Z`, `Wallet ${system.wallets.busy.id}`] as const,
      ...(payout ? [[`/payouts/${payout.id}`, `Payout ${payout.id}`] as const] : []),
      [`/search?q=${encodeURIComponent('+256700000001')}`, 'Search'] as const,
    ];
    const violations: string[] = [];
    const wider: string[] = [];
    for (const [path, heading] of paths) {
      await page.goto(`${system.dashboardUrl}${path}`);
      await settled(page, heading);
      violations.push(...(await accessibilityViolations(page, `${heading} on a phone`)));
      const width = await documentWidth(page);
      if (width > phone.width) wider.push(`${path}: ${width} px`);
    }
    await page.getByRole('button', { name: 'Toggle navigation' }).click();
    await page.getByRole('search', { name: 'Search everything' }).getByRole('textbox', { name: 'Search' }).waitFor();
    violations.push(...(await accessibilityViolations(page, 'the menu on a phone')));
    expect({ violations, wider }).toEqual({ violations: [], wider: [] });
  });
});

/** A dialog as a person opens it: on this screen, with this button; the dialog named so. */
interface DialogVisit {
  path: string;
  heading: string | RegExp;
  button: string | RegExp;
  dialog: string | RegExp;
}

describe('every dialog on a phone (390 × 844)', () => {
  it('passes axe with each dialog open, and none is wider than the phone', async () => {
    const page = await suite.newPage(PHONE);
    await signIn(page, system, 'org-admin', '/');
    const wallet = system.wallets.spare.id;
    const dialogs: DialogVisit[] = [
      { path: '/payouts', heading: 'Payouts', button: 'Request a payout', dialog: 'Request a payout' },
      { path: '/treasury', heading: 'Treasury', button: 'Record a float deposit', dialog: 'Record a float deposit' },
      { path: '/treasury', heading: 'Treasury', button: 'Request a withdrawal', dialog: 'Request a withdrawal' },
      { path: `/wallets/${wallet}`, heading: `Wallet ${wallet}`, button: /wallet$/, dialog: /wallet wl_/ },
      { path: '/team', heading: 'Team', button: 'Invite member', dialog: 'Invite a team member' },
      { path: '/team', heading: 'Team', button: /^Change role of /, dialog: /^Change the role of / },
      { path: '/developers?tab=keys', heading: 'Developers', button: 'Create API key', dialog: 'Create an API key' },
      { path: '/developers?tab=webhooks', heading: 'Developers', button: 'Add endpoint', dialog: 'Add a webhook endpoint' },
      { path: '/fees', heading: 'Fees', button: 'New draft schedule', dialog: 'New draft fee schedule' },
    ];
    const violations: string[] = [];
    const wider: string[] = [];
    for (const visit of dialogs) {
      await page.goto(`${system.dashboardUrl}${visit.path}`);
      await settled(page, visit.heading);
      await page.getByRole('button', { name: visit.button }).first().click();
      const dialog = page.getByRole('dialog', { name: visit.dialog });
      await dialog.waitFor();
      violations.push(...(await accessibilityViolations(page, `the dialog ${String(visit.dialog)} on a phone`)));
      const width = await documentWidth(page);
      if (width > PHONE.width) wider.push(`${String(visit.dialog)}: ${width} px`);
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'hidden' });
    }
    expect({ violations, wider }).toEqual({ violations: [], wider: [] });
  });
});

describe('signing in and out', () => {
  it('says only that the details are wrong, whichever part was', async () => {
    const page = await newPage();
    await page.goto(`${system.dashboardUrl}/login`);
    await onLoginPage(page);
    const violations = await accessibilityViolations(page, 'the login page');
    await screenshot(page, 'login');

    const attempt = async (email: string, password: string): Promise<string> => {
      await page.getByLabel('Email').fill(email);
      await page.getByLabel(/^Password/).fill(password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      const alert = page.getByRole('alert');
      await alert.waitFor();
      const text = await alert.innerText();
      await page.reload();
      return text;
    };
    const operator = system.members.operator;
    const wrongPassword = await attempt(operator.email, 'not the password of anyone');
    const unknownEmail = await attempt(`nobody-${Date.now()}@nowhere.example`, operator.password);
    expect(wrongPassword).toMatch(/not right/i);
    expect(unknownEmail).toBe(wrongPassword);
    expect(page.url()).toContain('/login');
    await page.getByLabel('Email').fill(operator.email);
    await page.getByLabel(/^Password/).fill('not the password of anyone');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').waitFor();
    violations.push(...(await accessibilityViolations(page, 'the login page with its error')));
    await screenshot(page, 'login-wrong-credentials');
    expect(violations).toEqual([]);
  });

  it('signs out: the session is revoked, not only forgotten', async () => {
    const page = await newPage();
    await signIn(page, system, 'observer', '/wallets');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await onLoginPage(page);
    expect((await page.request.get(`${system.dashboardUrl}/v1/auth/session`)).status()).toBe(401);
    await page.goto(`${system.dashboardUrl}/wallets`);
    await onLoginPage(page);
  });

  it('goes back to the login page once the session has expired, on the next navigation and on a reload', async () => {
    const page = await newPage();
    const expire = () =>
      system.identityDb.raw(`UPDATE sessions SET expires_at = now() - interval '1 second' WHERE member_id = ? AND expires_at > now()`, [
        system.members['finance-viewer'].id,
      ]);

    await signIn(page, system, 'finance-viewer', `/wallets/${system.wallets.busy.id}`);
    await expire();
    await mainNavigation(page).getByRole('link', { name: 'Wallets' }).click();
    await onLoginPage(page);
    expect(new URL(page.url()).searchParams.get('redirect')).toBe('/wallets');

    await signIn(page, system, 'finance-viewer', '/wallets');
    await expire();
    await page.reload();
    await onLoginPage(page);
  });
});

describe('freezing a wallet from its page', () => {
  async function changeStatus(page: Page, action: 'Freeze' | 'Unfreeze', reason: string): Promise<void> {
    await page.getByRole('button', { name: `${action} wallet` }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Reason').fill(reason);
    if (action === 'Freeze') await screenshot(page, 'wallet-freeze-dialog');
    await dialog.getByRole('button', { name: action, exact: true }).click();
    await dialog.waitFor({ state: 'hidden' });
  }

  it('stops transfers from it through the API until it is unfrozen', async () => {
    const wallet = system.wallets.spare;
    const page = await newPage();
    await signIn(page, system, 'operator', `/wallets/${wallet.id}`);

    await changeStatus(page, 'Freeze', 'Suspected account takeover, ticket 4711');
    await page.getByText('frozen', { exact: true }).waitFor();
    expect((await system.api.wallets.get(wallet.id)).status).toBe('frozen');
    const refused = await transferFrom(wallet, '1.00');
    expect(isWalletApiError(refused, 'WALLET_FROZEN')).toBe(true);
    await screenshot(page, 'wallet-frozen');

    await changeStatus(page, 'Unfreeze', 'Owner verified by phone');
    await page.getByText('active', { exact: true }).waitFor();
    expect((await system.api.wallets.get(wallet.id)).status).toBe('active');
    expect(await transferFrom(wallet, '1.00')).toMatchObject({ status: 'completed', amount: '1.00' });
  });
});

describe('the statement export', () => {
  it('downloads the whole statement as CSV, line for line the API statement, amounts exact', async () => {
    const wallet = system.wallets.busy;
    const fromApi = await statementThroughApi(wallet.id, 50);
    // More lines than the largest page: the export has to walk the pages.
    expect(fromApi.length).toBeGreaterThan(PAGE_LIMIT_MAX);

    const page = await newPage();
    await signIn(page, system, 'finance-viewer', `/wallets/${wallet.id}`);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export statement (CSV)' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/\.csv$/);
    const csv = readFileSync(await download.path(), 'utf8');

    const [header, ...rows] = csv
      .replace(/\r\n$/, '')
      .split('\r\n')
      .map((row) => row.split(','));
    const column = (name: string): number => {
      const index = (header ?? []).indexOf(name);
      if (index < 0) throw new Error(`the CSV has no ${name} column: ${String(header)}`);
      return index;
    };
    const fields = ['createdAt', 'journalEntryId', 'kind', 'direction', 'amount', 'balanceAfter'] as const;
    const exported = rows.map((row) => Object.fromEntries(fields.map((field) => [field, row[column(field)]])));
    expect(exported).toEqual(fromApi.map((line) => Object.fromEntries(fields.map((field) => [field, line[field]]))));
    expect(rows.every((row) => row[column('currencyCode')] === CURRENCY)).toBe(true);
  });
});

describe("a period's statement", () => {
  it('shows and exports only the lines of the period, and prints it as a PDF with the balances the ledger answers', async () => {
    const wallet = system.wallets.busy;
    const all = await statementThroughApi(wallet.id, 200);
    const stamps = [...new Set(all.map((line) => line.createdAt))];
    expect(stamps.length).toBeGreaterThan(3);
    // Stamps newest first: a period that leaves the newest and the oldest stamps out.
    const period = { createdFrom: stamps.at(-2) as string, createdTo: stamps[1] as string };
    const inPeriod = all.filter((line) => line.createdAt >= period.createdFrom && line.createdAt < period.createdTo);
    expect(inPeriod.length).toBeGreaterThan(0);
    expect(inPeriod.length).toBeLessThan(all.length);
    expect((await statementThroughApi(wallet.id, 200, period)).map((line) => line.journalEntryId)).toEqual(
      inPeriod.map((line) => line.journalEntryId),
    );

    const page = await newPage();
    await signIn(page, system, 'finance-viewer', `/wallets/${wallet.id}?${new URLSearchParams(period).toString()}`);
    const statement = page.getByRole('table', { name: 'Statement, newest first' });
    await statement
      .locator('tbody tr')
      .first()
      .getByText(inPeriod[0]?.journalEntryId as string)
      .waitFor();

    const [csvDownload] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export statement (CSV)' }).click(),
    ]);
    const csvRows = readFileSync(await csvDownload.path(), 'utf8')
      .trimEnd()
      .split('\r\n')
      .slice(1);
    expect(csvRows.map((row) => row.split(',')[1])).toEqual(inPeriod.map((line) => line.journalEntryId));

    const [pdfDownload] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Statement (PDF)' }).click()]);
    expect(pdfDownload.suggestedFilename()).toBe(`statement-${wallet.id}.pdf`);
    const pdf = readFileSync(await pdfDownload.path(), 'latin1');
    expect(pdf.startsWith('%PDF-')).toBe(true);
    const balanceAt = async (instant: string) =>
      (await system.api.wallets.balanceAt(wallet.id, new Date(Date.parse(instant) - 1).toISOString())).balance;
    const opening = await balanceAt(period.createdFrom);
    const closing = await balanceAt(period.createdTo);
    const sum = (direction: string) =>
      inPeriod.filter((line) => line.direction === direction).reduce((total, line) => total.plus(line.amount), new BigNumber(0));
    // The books agree: the period's lines take the opening balance to the closing one.
    expect(new BigNumber(opening).plus(sum('CR')).minus(sum('DR')).isEqualTo(closing)).toBe(true);
    const grouped = (amount: string) => `${new BigNumber(amount).toFormat(2)} ${CURRENCY}`;
    expect(pdf).toContain(`(Opening balance ${grouped(opening)})`);
    expect(pdf).toContain(`(Closing balance ${grouped(closing)})`);
    expect(pdf).toContain(`${inPeriod.length} lines)`);
    for (const line of inPeriod.slice(0, 5)) expect(pdf).toContain(`(${line.journalEntryId})`);
    expect(await accessibilityViolations(page, 'a wallet statement with its period')).toEqual([]);
  });
});

describe('requests from another origin', () => {
  /**
   * The attacker's site. `/fetch` posts to the dashboard with the victim's browser: plain
   * cross-origin posts (no-cors: a custom header cannot be sent), and a CORS post with the CSRF
   * cookie's value in the header, which a page on the same host can read (cookies do not keep
   * ports apart); it records what each got and which cookies it could read. `/form` submits a form.
   */
  function attackerSite(dashboardUrl: string, walletId: string): http.Server {
    const forged = JSON.stringify({ ownerType: 'user', ownerId: 'csrf-victim', currencyCode: CURRENCY });
    const script = `
      const stolen = (document.cookie.match(/wallet_csrf=([^;]+)/) || [])[1] || '';
      const outcome = (request) => request.then((answer) => answer.type === 'opaque' ? 'opaque' : String(answer.status), () => 'blocked');
      Promise.all([
        outcome(fetch(${JSON.stringify(`${dashboardUrl}/v1/wallets`)}, { method: 'POST', mode: 'no-cors', credentials: 'include', headers: { 'content-type': 'text/plain' }, body: ${JSON.stringify(forged)} })),
        outcome(fetch(${JSON.stringify(`${dashboardUrl}/v1/wallets/${walletId}/freeze`)}, { method: 'POST', mode: 'no-cors', credentials: 'include', headers: { 'content-type': 'text/plain' }, body: '{"reason":"forged"}' })),
        outcome(fetch(${JSON.stringify(`${dashboardUrl}/v1/wallets/${walletId}/freeze`)}, { method: 'POST', mode: 'cors', credentials: 'include', headers: { 'content-type': 'application/json', 'x-csrf-token': stolen }, body: '{"reason":"forged"}' })),
      ]).then((outcomes) => {
        document.getElementById('out').textContent = JSON.stringify({ outcomes, cookies: document.cookie.split('; ').map((cookie) => cookie.split('=')[0]).filter(Boolean).sort() });
      });`;
    const pages: Record<string, string> = {
      '/fetch': `<!doctype html><title>Win a prize</title><pre id="out"></pre><script>${script}</script>`,
      '/form': `<!doctype html><title>Win a prize</title><body onload="document.forms[0].submit()">
        <form method="POST" enctype="text/plain" action="${dashboardUrl}/v1/wallets/${walletId}/freeze"><input name='{"reason":"forged","x":"' value='"}'></form></body>`,
    };
    return http.createServer((request, response) => {
      const body = pages[request.url ?? ''];
      response.writeHead(body ? 200 : 404, { 'content-type': 'text/html' });
      response.end(body ?? '');
    });
  }

  it('changes nothing when another site posts with the signed-in browser, by form, by fetch, or with the CSRF cookie read', async () => {
    const wallet = system.wallets.spare;
    const walletsBefore = (await system.api.wallets.list({ limit: PAGE_LIMIT_MAX })).data.map((each) => each.id);
    const port = await freePort();
    const attacker = attackerSite(system.dashboardUrl, wallet.id);
    await new Promise<void>((resolve) => attacker.listen(port, '127.0.0.1', resolve));
    const reached: Response[] = [];
    const seen: Record<string, unknown> = {};
    try {
      const page = await newPage();
      await signIn(page, system, 'operator', '/wallets');
      page.on('response', (response) => {
        if (response.request().method() === 'POST' && response.url().startsWith(`${system.dashboardUrl}/v1/`)) reached.push(response);
      });
      // Another port is another origin on the same site (SameSite=Strict sends the cookie); `localhost` is another site.
      for (const origin of [`http://127.0.0.1:${port}`, `http://localhost:${port}`]) {
        await page.goto(`${origin}/fetch`);
        const out = page.locator('#out', { hasText: 'outcomes' });
        await out.waitFor();
        seen[origin] = JSON.parse((await out.textContent()) ?? '{}');
        const before = reached.length;
        await page.goto(`${origin}/form`);
        // The form navigates the page to the dashboard's answer.
        await page.waitForURL(`${system.dashboardUrl}/v1/wallets/${wallet.id}/freeze`);
        await waitForCount(reached, before + 1);
      }
    } finally {
      await new Promise((resolve) => attacker.close(resolve));
    }
    // The same host reads the CSRF cookie but never the session; the stolen token still does not pass another origin, nor its preflight.
    expect(seen).toEqual({
      [`http://127.0.0.1:${port}`]: { outcomes: ['opaque', 'opaque', 'blocked'], cookies: ['wallet_csrf'] },
      [`http://localhost:${port}`]: { outcomes: ['opaque', 'opaque', 'blocked'], cookies: [] },
    });
    // Each forged post that reached the dashboard was refused before anything ran.
    expect(reached.length).toBeGreaterThanOrEqual(6);
    expect(new Set(reached.map((response) => response.status()))).toEqual(new Set([403]));
    expect((await system.api.wallets.get(wallet.id)).status).toBe('active');
    expect((await system.api.wallets.list({ ownerId: 'csrf-victim' })).data).toEqual([]);
    expect((await system.api.wallets.list({ limit: PAGE_LIMIT_MAX })).data.map((each) => each.id)).toEqual(walletsBefore);
  });
});

async function waitForCount(list: readonly unknown[], count: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (list.length < count) {
    if (Date.now() > deadline) throw new Error(`expected ${count} cross-site requests to reach the dashboard, saw ${list.length}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
