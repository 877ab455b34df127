import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import {
  DASHBOARD_CSRF_COOKIE,
  DASHBOARD_CSRF_HEADER,
  DASHBOARD_SESSION_COOKIE,
  dashboardPrincipalSchema,
  dashboardSessionSchema,
} from '@wallet/contracts';
import { waitFor } from '@wallet/kit/testing';
import { WalletClient } from '@wallet/sdk';
import { parseSetCookie } from 'cookie';
import { type SecuritySystem, startSecuritySystem, SYSTEM_KEY } from './in-process-system';

/**
 * The dashboard listener (`{demo_url}`) against the real services: the session lives in an
 * HttpOnly cookie, writes need the CSRF header, nothing but the cookie authenticates there, and
 * every API request still goes through scopes and request logs as the member.
 */
let system: SecuritySystem;
let dashboardUrl: string;
let platform: WalletClient;
let admin: WalletClient;
let tenantId: string;
const password = 'correct horse battery staple';
/** A CSRF token the gateway hands a browser without a session: a random part and its MAC. */
const ISSUED_CSRF_TOKEN = /^[A-Za-z0-9_-]{43}\.[A-Za-z0-9_-]{43}$/;

/** A browser's view of one origin: its cookie jar, and what Set-Cookie said about each cookie. */
class Browser {
  readonly cookies = new Map<string, string>();
  readonly attributes = new Map<string, ReturnType<typeof parseSetCookie>>();

  /** Another gateway instance's dashboard listener, or by default the one of these tests. */
  constructor(private readonly origin?: string) {}

  async request(
    method: string,
    pathWithQuery: string,
    options: { body?: unknown; headers?: Record<string, string>; csrf?: boolean } = {},
  ): Promise<{ status: number; headers: Headers; json: any; text: string }> {
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    if (this.cookies.size > 0) headers.cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    if (options.csrf !== false && this.cookies.has(DASHBOARD_CSRF_COOKIE))
      headers[DASHBOARD_CSRF_HEADER] ??= this.cookies.get(DASHBOARD_CSRF_COOKIE) as string;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    const body = options.body === undefined ? undefined : JSON.stringify(options.body);
    const response = await fetch(`${this.origin ?? dashboardUrl}${pathWithQuery}`, { method, headers, body });
    for (const line of response.headers.getSetCookie()) {
      const cookie = parseSetCookie(line);
      this.attributes.set(cookie.name, cookie);
      if (cookie.maxAge === 0 || cookie.value === '') this.cookies.delete(cookie.name);
      else this.cookies.set(cookie.name, cookie.value as string);
    }
    const text = await response.text();
    let json: any = null;
    try {
      json = JSON.parse(text);
    } catch {
      json = null;
    }
    return { status: response.status, headers: response.headers, json, text };
  }

  /** A wallet of `ownerId` created from this browser: what a forged request would do. */
  async createWallet(ownerId: string, headers: Record<string, string> = {}): Promise<{ status: number; code: string | undefined }> {
    const answer = await this.request('POST', '/v1/wallets', { body: { ownerType: 'user', ownerId, currencyCode: 'KES' }, headers });
    return { status: answer.status, code: answer.json?.error?.code };
  }

  /** The app's first page load, which hands out the CSRF cookie, then a login. */
  async signIn(email: string, secret = password): Promise<{ status: number; json: any }> {
    await this.request('GET', '/');
    return this.request('POST', '/v1/auth/login', { body: { email, password: secret, environment: 'live' } });
  }
}

function builtApp(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'dashboard-dist-'));
  mkdirSync(path.join(dir, 'assets'));
  writeFileSync(
    path.join(dir, 'index.html'),
    '<!doctype html><html><head><title>Wallet dashboard</title></head><body><div id="root"></div></body></html>',
  );
  writeFileSync(path.join(dir, 'assets', 'app-1234.js'), 'console.log("app");');
  writeFileSync(path.join(dir, 'assets', 'app-1234.js.map'), '{"version":3,"sources":["src/main.tsx"],"mappings":""}');
  return dir;
}

async function newMember(orgRole: 'operator' | 'observer'): Promise<{ id: string; email: string }> {
  const email = `${orgRole}-${randomUUID().slice(0, 8)}@example.com`;
  const member = await admin.team.create({ name: orgRole, email, password, orgRole });
  return { id: member.id, email };
}

beforeAll(async () => {
  system = await startSecuritySystem('dashboard_listener', { DASHBOARD_DIST: builtApp() });
  const gateway = await system.addGateway();
  dashboardUrl = `http://127.0.0.1:${gateway.dashboardPort}`;
  platform = new WalletClient({ baseUrl: system.adminUrl, auth: { type: 'system', systemKey: SYSTEM_KEY } });
  const slug = `dash-${randomUUID().slice(0, 8)}`;
  tenantId = (
    await platform.system.tenants.create({
      name: slug,
      slug,
      config: { defaultCurrency: 'KES', allowedCurrencies: ['KES'], maxTransactionAmount: '100000' },
    })
  ).id;
  const key = await platform.apiKeys.createForTenant(tenantId, { name: 'admin', scopes: ['tenant:manage'], environment: 'live' });
  admin = new WalletClient({ baseUrl: system.publicUrl, auth: { type: 'secret', apiKey: key.key as string }, maxRetries: 0 });
});

afterAll(async () => {
  await system?.close();
});

describe('the dashboard listener serves the app', () => {
  it('serves index.html for the app and its deep links, with a CSP and a CSRF cookie, and 404 for a missing asset or a source map', async () => {
    const browser = new Browser();
    const page = await browser.request('GET', '/');
    expect(page.status).toBe(200);
    expect(page.text).toContain('<div id="root">');
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(browser.cookies.get(DASHBOARD_CSRF_COOKIE)).toMatch(ISSUED_CSRF_TOKEN);
    expect(browser.attributes.get(DASHBOARD_CSRF_COOKIE)).toMatchObject({ sameSite: 'strict', path: '/' });
    expect((await browser.request('GET', '/wallets/wal_123?tab=statement')).text).toContain('<div id="root">');
    const asset = await browser.request('GET', '/assets/app-1234.js');
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toContain('immutable');
    expect((await browser.request('GET', '/assets/missing.js')).status).toBe(404);
    // The build keeps its source maps for whoever reads a stack trace; the browser is not given the sources.
    const map = await browser.request('GET', '/assets/app-1234.js.map');
    expect(map.status).toBe(404);
    expect(map.text).not.toContain('src/main.tsx');
  });
});

describe('dashboard sessions', () => {
  it('logs in into an HttpOnly SameSite=Strict cookie, never showing the token, and acts as the member', async () => {
    const operator = await newMember('operator');
    const browser = new Browser();
    const login = await browser.signIn(operator.email);
    expect(login.status).toBe(200);
    const session = dashboardSessionSchema.strict().parse(login.json);
    expect(session.member.id).toBe(operator.id);
    expect(JSON.stringify(login.json)).not.toContain('sess_');
    const cookie = browser.attributes.get(DASHBOARD_SESSION_COOKIE);
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'strict', path: '/' });
    expect(cookie?.secure).toBeFalsy();
    expect(cookie?.maxAge).toBeGreaterThan(0);

    const principal = dashboardPrincipalSchema.parse((await browser.request('GET', '/v1/auth/session')).json);
    expect(principal).toMatchObject({ tenantId, memberId: operator.id, orgRole: 'operator', environment: 'live' });
    expect(principal.scopes).toContain('wallets:create');

    const created = await browser.request('POST', '/v1/wallets', {
      body: { ownerType: 'user', ownerId: 'dash-owner', currencyCode: 'KES' },
    });
    expect(created.status).toBe(201);
    // The request log names the member and the session, as for any other client.
    const log = await waitFor(
      async () => (await admin.requestLogs.list({ correlationId: created.headers.get('x-correlation-id') as string })).data[0],
      { timeoutMs: 5_000, what: 'the request log' },
    );
    expect(log).toMatchObject({ authMode: 'session', actorType: 'team_member', actorId: operator.id, status: 201 });
  });

  it('says which part was wrong no more than the API does', async () => {
    const operator = await newMember('operator');
    const wrongPassword = await new Browser().signIn(operator.email, 'not the password at all');
    const wrongEmail = await new Browser().signIn(`nobody-${randomUUID()}@example.com`);
    expect([wrongPassword.status, wrongPassword.json.error.code]).toEqual([401, 'INVALID_CREDENTIALS']);
    expect([wrongEmail.status, wrongEmail.json.error.code]).toEqual([401, 'INVALID_CREDENTIALS']);
    expect(wrongEmail.json.error.message).toBe(wrongPassword.json.error.message);
  });

  it('refuses state-changing requests without the CSRF header or from another origin, changing nothing', async () => {
    const operator = await newMember('operator');
    const browser = new Browser();
    await browser.signIn(operator.email);
    const body = { ownerType: 'user', ownerId: 'csrf-victim', currencyCode: 'KES' };
    const noHeader = await browser.request('POST', '/v1/wallets', { body, csrf: false });
    const wrongHeader = await browser.request('POST', '/v1/wallets', { body, headers: { [DASHBOARD_CSRF_HEADER]: 'guessed' } });
    const otherOrigin = await browser.request('POST', '/v1/wallets', { body, headers: { origin: 'https://evil.example' } });
    for (const refused of [noHeader, wrongHeader, otherOrigin])
      expect([refused.status, refused.json.error.code]).toEqual([403, 'CSRF_TOKEN_INVALID']);
    // A login from another site (login CSRF) is refused too.
    const stranger = new Browser();
    const forged = await stranger.request('POST', '/v1/auth/login', { body: { email: operator.email, password, environment: 'live' } });
    expect(forged.status).toBe(403);
    const wallets = await admin.wallets.list({ ownerId: 'csrf-victim' });
    expect(wallets.data).toEqual([]);
  });

  it('takes from a signed-in session only its own CSRF token: not a pair the attacker chose, nor a token of before login', async () => {
    const operator = await newMember('operator');
    const attacker = new Browser();
    await attacker.request('GET', '/');
    const issuedToAttacker = attacker.cookies.get(DASHBOARD_CSRF_COOKIE) as string;
    const victim = new Browser();
    await victim.signIn(operator.email);
    // A sibling subdomain or a plain-HTTP man in the middle can set the cookie, and then knows what to put in the header.
    for (const planted of ['chosen-by-the-attacker', 'a'.repeat(43), issuedToAttacker]) {
      victim.cookies.set(DASHBOARD_CSRF_COOKIE, planted);
      const refused = await victim.createWallet('planted-csrf', { [DASHBOARD_CSRF_HEADER]: planted });
      expect({ planted, ...refused }).toEqual({ planted, status: 403, code: 'CSRF_TOKEN_INVALID' });
    }
    expect((await admin.wallets.list({ ownerId: 'planted-csrf' })).data).toEqual([]);
  });

  it("refuses another session's CSRF token", async () => {
    const [first, second] = [new Browser(), new Browser()];
    await first.signIn((await newMember('operator')).email);
    await second.signIn((await newMember('operator')).email);
    const othersToken = second.cookies.get(DASHBOARD_CSRF_COOKIE) as string;
    expect(othersToken).not.toBe(first.cookies.get(DASHBOARD_CSRF_COOKIE));
    first.cookies.set(DASHBOARD_CSRF_COOKIE, othersToken);
    expect(await first.createWallet('other-session')).toEqual({ status: 403, code: 'CSRF_TOKEN_INVALID' });
  });

  it('before login takes only a token the gateway issued, still equal in cookie and header', async () => {
    const operator = await newMember('operator');
    const login = { email: operator.email, password, environment: 'live' };
    for (const chosen of ['chosen-by-the-attacker', `${'a'.repeat(43)}.${'b'.repeat(43)}`]) {
      const stranger = new Browser();
      stranger.cookies.set(DASHBOARD_CSRF_COOKIE, chosen);
      const { status, json } = await stranger.request('POST', '/v1/auth/login', { body: login });
      expect({ chosen, status, code: json.error?.code }).toEqual({ chosen, status: 403, code: 'CSRF_TOKEN_INVALID' });
    }
    const browser = new Browser();
    await browser.request('GET', '/');
    const issued = browser.cookies.get(DASHBOARD_CSRF_COOKIE) as string;
    const otherHeader = { [DASHBOARD_CSRF_HEADER]: issued.replace(/^./, (first) => (first === 'A' ? 'B' : 'A')) };
    expect((await browser.request('POST', '/v1/auth/login', { body: login, headers: otherHeader })).status).toBe(403);
    expect((await browser.request('POST', '/v1/auth/login', { body: login })).status).toBe(200);
    // The login hands the page the token of its new session.
    expect(browser.cookies.get(DASHBOARD_CSRF_COOKIE)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect((await browser.createWallet('after-login')).status).toBe(201);
  });

  it('sets the right token on the next safe request of a browser that holds another, and every gateway instance agrees', async () => {
    const operator = await newMember('operator');
    const browser = new Browser();
    await browser.signIn(operator.email);
    const bound = browser.cookies.get(DASHBOARD_CSRF_COOKIE) as string;
    // As a browser signed in before tokens were bound to sessions: a random token of its own.
    browser.cookies.set(DASHBOARD_CSRF_COOKIE, 'x'.repeat(43));
    expect((await browser.createWallet('healed')).status).toBe(403);
    await browser.request('GET', '/v1/auth/session');
    expect(browser.cookies.get(DASHBOARD_CSRF_COOKIE)).toBe(bound);
    expect((await browser.createWallet('healed')).status).toBe(201);

    const elsewhere = new Browser(`http://127.0.0.1:${(await system.addGateway()).dashboardPort}`);
    for (const [name, value] of browser.cookies) elsewhere.cookies.set(name, value);
    expect((await elsewhere.createWallet('elsewhere')).status).toBe(201);
    expect((await elsewhere.request('POST', '/v1/auth/logout')).status).toBe(200);
    // Signed out, the page holds a token of before login again, and can sign in at once.
    expect(elsewhere.cookies.get(DASHBOARD_CSRF_COOKIE)).toMatch(ISSUED_CSRF_TOKEN);
    const login = { email: operator.email, password, environment: 'live' };
    expect((await elsewhere.request('POST', '/v1/auth/login', { body: login })).status).toBe(200);
  });

  it('knows no credential but its cookie, and no platform route', async () => {
    const key = await platform.apiKeys.createForTenant(tenantId, { name: 'reader', scopes: ['wallets:read'], environment: 'live' });
    const browser = new Browser();
    const withKey = await browser.request('GET', '/v1/wallets', { headers: { 'x-api-key': key.key as string } });
    expect([withKey.status, withKey.json.error.code]).toEqual([401, 'MISSING_CREDENTIALS']);
    const withSystemKey = await browser.request('GET', `/v1/tenants/${tenantId}`, { headers: { 'x-system-key': SYSTEM_KEY } });
    expect(withSystemKey.status).toBe(404);
  });

  it('lets a role do only what its scopes allow', async () => {
    const observer = await newMember('observer');
    const browser = new Browser();
    await browser.signIn(observer.email);
    expect((await browser.request('GET', '/v1/wallets')).status).toBe(200);
    const refused = await browser.request('POST', '/v1/wallets', {
      body: { ownerType: 'user', ownerId: 'observer-try', currencyCode: 'KES' },
    });
    expect([refused.status, refused.json.error.code]).toEqual([403, 'INSUFFICIENT_SCOPE']);
  });

  it('ends on logout and on expiry, clearing the cookie', async () => {
    const operator = await newMember('operator');
    const browser = new Browser();
    await browser.signIn(operator.email);
    const token = browser.cookies.get(DASHBOARD_SESSION_COOKIE) as string;
    const out = await browser.request('POST', '/v1/auth/logout');
    expect(out.status).toBe(200);
    expect(browser.cookies.has(DASHBOARD_SESSION_COOKIE)).toBe(false);
    // The token itself is revoked, not only forgotten by the browser.
    const replayed = new WalletClient({ baseUrl: system.publicUrl, auth: { type: 'session', token }, maxRetries: 0 });
    await expect(replayed.wallets.list()).rejects.toMatchObject({ code: 'INVALID_SESSION' });
    expect((await browser.request('GET', '/v1/auth/session')).json.error.code).toBe('INVALID_SESSION');

    await browser.signIn(operator.email);
    await system.identityDb.raw(`UPDATE sessions SET expires_at = now() - interval '1 second' WHERE member_id = ?`, [operator.id]);
    const expired = await browser.request('GET', '/v1/auth/session');
    expect([expired.status, expired.json.error.code]).toEqual([401, 'INVALID_SESSION']);
    expect(browser.cookies.has(DASHBOARD_SESSION_COOKIE)).toBe(false);
    expect((await browser.request('GET', '/v1/wallets')).status).toBe(401);
  });
});
