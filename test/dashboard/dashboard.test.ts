import { readFileSync } from 'node:fs';
import http from 'node:http';
import { hasScope, PAGE_LIMIT_MAX, ROLE_SCOPES, type statementLineSchema, type Wallet } from '@wallet/contracts';
import { isWalletApiError } from '@wallet/sdk';
import type { BrowserContext, Page, Response } from 'playwright-core';
import type { z } from 'zod';
import { NAVIGATION } from '../../apps/dashboard/src/app/navigation';
import { freePort } from '../../scripts/lib/system';
import { accessibilityViolations, CURRENCY, DASHBOARD_ROLES, type DashboardRole, type DashboardSystem, screenshot, settled, signIn, startDashboardSystem } from './support';

/**
 * The dashboard in a real Chromium against the real system (test/dashboard/support.ts): what
 * each role sees, sessions ending, a freeze, the statement export, and cross-site requests.
 */
type StatementLine = z.infer<typeof statementLineSchema>;

let system: DashboardSystem;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  system = await startDashboardSystem('dashboard_browser');
}, 240_000);

afterAll(async () => {
  await system?.close();
});

afterEach(async () => {
  for (const context of contexts.splice(0)) await context.close();
});

/** A fresh browser profile's worth of state: no cookies, no storage. */
async function newPage(): Promise<Page> {
  const context = await system.browser.newContext({ viewport: { width: 1280, height: 800 }, timezoneId: 'Africa/Kampala' });
  contexts.push(context);
  context.setDefaultTimeout(15_000);
  return context.newPage();
}

function mainNavigation(page: Page) {
  return page.getByRole('navigation', { name: 'Main' });
}

async function onLoginPage(page: Page): Promise<void> {
  await page.waitForURL((url) => url.pathname === '/login');
  await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
}

/** The screens a role's scopes let it read, by the routes each screen declares and the contracts' scope rules. */
function expectedScreens(role: DashboardRole): string[] {
  return NAVIGATION.filter((item) => item.reads.some((route) => route.surface === 'tenant' && hasScope(ROLE_SCOPES[role], route.scope))).map((item) => item.label);
}

/** Every line of a wallet's statement through the API, in its order, walking pages of `limit`. */
async function statementThroughApi(walletId: string, limit: number): Promise<StatementLine[]> {
  const lines: StatementLine[] = [];
  let cursor: string | undefined;
  do {
    const page = await system.api.wallets.entries(walletId, { limit, ...(cursor ? { cursor } : {}) });
    lines.push(...page.data);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return lines;
}

async function transferFrom(wallet: Wallet, amount: string): Promise<unknown> {
  return system.api.transfers.create({ fromWalletId: wallet.id, toWalletId: system.wallets.counterpart.id, amount, currencyCode: CURRENCY }).catch((error: unknown) => error);
}

describe('what each role sees', () => {
  it.each(DASHBOARD_ROLES)('%s: exactly the screens its scopes allow, each accessible', async (role) => {
    const page = await newPage();
    await signIn(page, system, role);
    const expected = expectedScreens(role);
    expect(await mainNavigation(page).getByRole('link').allInnerTexts()).toEqual(expected);

    // The server agrees: a listed screen's reads answer this member, a hidden one's refuse it.
    for (const item of NAVIGATION) {
      const statuses = await Promise.all(item.reads.map(async (route) => (await page.request.get(`${system.dashboardUrl}${route.path}`)).status()));
      expect({ screen: item.label, anyAllowed: statuses.includes(200) }).toEqual({ screen: item.label, anyAllowed: expected.includes(item.label) });
    }

    // Every screen is visited before the accessibility verdict, so one failure lists them all.
    const violations: string[] = [];
    for (const label of expected) {
      await mainNavigation(page).getByRole('link', { name: label }).click();
      await settled(page, label);
      violations.push(...(await accessibilityViolations(page, `${label} (${role})`)));
      await screenshot(page, `${role}-${label}`);
    }
    if (expected.includes('Wallets')) {
      const wallet = system.wallets.busy;
      await page.getByRole('link', { name: wallet.id }).click();
      await settled(page, `Wallet ${wallet.id}`);
      expect(await page.getByRole('button', { name: 'Freeze wallet' }).count()).toBe(hasScope(ROLE_SCOPES[role], 'wallets:manage') ? 1 : 0);
      violations.push(...(await accessibilityViolations(page, `the wallet page (${role})`)));
      await screenshot(page, `${role}-wallet`);
    }
    expect(violations).toEqual([]);
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
    await signIn(page, system, 'observer');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await onLoginPage(page);
    expect((await page.request.get(`${system.dashboardUrl}/v1/auth/session`)).status()).toBe(401);
    await page.goto(`${system.dashboardUrl}/wallets`);
    await onLoginPage(page);
  });

  it('goes back to the login page once the session has expired, on the next navigation and on a reload', async () => {
    const page = await newPage();
    const expire = () => system.identityDb.raw(`UPDATE sessions SET expires_at = now() - interval '1 second' WHERE member_id = ? AND expires_at > now()`, [system.members['finance-viewer'].id]);

    await signIn(page, system, 'finance-viewer');
    await expire();
    await mainNavigation(page).getByRole('link', { name: 'Wallets' }).click();
    await onLoginPage(page);
    expect(new URL(page.url()).searchParams.get('redirect')).toBe('/wallets');

    await signIn(page, system, 'finance-viewer');
    await mainNavigation(page).getByRole('link', { name: 'Wallets' }).click();
    await settled(page, 'Wallets');
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
    await signIn(page, system, 'operator');
    await page.goto(`${system.dashboardUrl}/wallets/${wallet.id}`);
    await settled(page, `Wallet ${wallet.id}`);

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
    await signIn(page, system, 'finance-viewer');
    await page.goto(`${system.dashboardUrl}/wallets/${wallet.id}`);
    await settled(page, `Wallet ${wallet.id}`);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export statement (CSV)' }).click()]);
    expect(download.suggestedFilename()).toMatch(/\.csv$/);
    const csv = readFileSync(await download.path(), 'utf8');

    const [header, ...rows] = csv.replace(/\r\n$/, '').split('\r\n').map((row) => row.split(','));
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

describe('requests from another origin', () => {
  /** The attacker's site: pages that, once opened, post to the dashboard with the victim's browser. */
  function attackerPages(dashboardUrl: string, walletId: string): http.Server {
    const forged = JSON.stringify({ ownerType: 'user', ownerId: 'csrf-victim', currencyCode: CURRENCY });
    const pages: Record<string, string> = {
      '/form': `<!doctype html><title>Win a prize</title><body onload="document.forms[0].submit()">
        <form method="POST" enctype="text/plain" action="${dashboardUrl}/v1/wallets/${walletId}/freeze"><input name='{"reason":"forged","x":"' value='"}'></form></body>`,
      '/fetch': `<!doctype html><title>Win a prize</title><script>
        fetch(${JSON.stringify(`${dashboardUrl}/v1/wallets`)}, { method: 'POST', mode: 'no-cors', credentials: 'include', headers: { 'content-type': 'text/plain' }, body: ${JSON.stringify(forged)} });
        fetch(${JSON.stringify(`${dashboardUrl}/v1/wallets/${walletId}/freeze`)}, { method: 'POST', mode: 'no-cors', credentials: 'include', headers: { 'content-type': 'text/plain' }, body: '{"reason":"forged"}' });
      </script>`,
    };
    return http.createServer((request, response) => {
      const body = pages[request.url ?? ''];
      response.writeHead(body ? 200 : 404, { 'content-type': 'text/html' });
      response.end(body ?? '');
    });
  }

  it('changes nothing when another site posts with the signed-in browser, by form or by fetch', async () => {
    const wallet = system.wallets.spare;
    const walletsBefore = (await system.api.wallets.list({ limit: PAGE_LIMIT_MAX })).data.map((each) => each.id);
    const port = await freePort();
    const attacker = attackerPages(system.dashboardUrl, wallet.id);
    await new Promise<void>((resolve) => attacker.listen(port, '127.0.0.1', resolve));
    try {
      const page = await newPage();
      await signIn(page, system, 'operator');
      const posts: Response[] = [];
      page.on('response', (response) => {
        if (response.request().method() === 'POST' && response.url().startsWith(`${system.dashboardUrl}/v1/`)) posts.push(response);
      });
      // Another port is another origin but the same site, so SameSite=Strict still sends the cookie; `localhost` is another site.
      for (const origin of [`http://127.0.0.1:${port}`, `http://localhost:${port}`]) {
        const before = posts.length;
        await page.goto(`${origin}/fetch`);
        await waitForCount(posts, before + 2);
        await page.goto(`${origin}/form`);
        await waitForCount(posts, before + 3);
      }
      expect(posts.map((response) => response.status())).toEqual([403, 403, 403, 403, 403, 403]);
      const sameSite = posts.slice(0, 3);
      for (const response of sameSite) expect((await response.request().allHeaders()).cookie ?? '').toContain('wallet_session=');
    } finally {
      await new Promise((resolve) => attacker.close(resolve));
    }
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
