import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import path from 'node:path';
import axe from 'axe-core';
import { type OrgRole, type Wallet } from '@wallet/contracts';
import { createDb, type Db } from '@wallet/kit';
import { createTestDatabase, createTestVhost, waitFor } from '@wallet/kit/testing';
import { WalletClient } from '@wallet/sdk';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { DASHBOARD_DIST, DASHBOARD_STAMP, dashboardSourcesHash } from '../../scripts/build';
import { launchChromium, requireChromium, signInAt } from '../../scripts/lib/dashboard-browser';
import { inParallel, momoDeposit } from '../../scripts/lib/scale-setup';
import { sharedSystem } from './shared-system';
import { onFreePorts } from '../../scripts/lib/system-ports';

/**
 * The dashboard's browser tests: the whole system as `npm start` runs it (the services from their
 * bundles, the gateway serving the built app on its dashboard listener), one for the run's browser
 * suites; a seeded tenant of each suite's own with a member of every role; and Debian's Chromium
 * driven by playwright-core (no browser download).
 */

const ROOT = path.resolve(__dirname, '../..');
const SYSTEM_KEY = 'dashboard-system-key-0123456789abcdefghijklmn';
export const SCREENSHOT_DIR = path.join(ROOT, 'test-results/dashboard');

/** The roles a person signs in with ("user" is an end customer of the tenant, not a dashboard role). */
export const DASHBOARD_ROLES = [
  'org-admin',
  'operator',
  'approver',
  'finance-viewer',
  'observer',
  'developer',
] as const satisfies readonly OrgRole[];
export type DashboardRole = (typeof DASHBOARD_ROLES)[number];

export interface Member {
  id: string;
  email: string;
  password: string;
}

export const CURRENCY = 'USD';

export interface DashboardSystem {
  dashboardUrl: string;
  gatewayUrl: string;
  /** The ledger's database, for a test that writes history in bulk where the API would take minutes. */
  ledgerDatabaseUrl: string;
  tenantId: string;
  /** A live secret key of the tenant with tenant:manage: what the tests check the dashboard's effects with. */
  api: WalletClient;
  members: Record<DashboardRole, Member>;
  /** Funded live wallets: `busy` has a statement longer than the API's largest page. */
  wallets: { busy: Wallet; counterpart: Wallet; spare: Wallet };
  identityDb: Db;
  browser: Browser;
  close(): Promise<void>;
}

/**
 * The app must have been built from the sources at hand (`npm run build`): a browser test of a
 * missing or an older build would test nothing, or another app.
 */
function requireBuiltApp(): void {
  const where = path.relative(ROOT, DASHBOARD_DIST);
  if (!existsSync(path.join(DASHBOARD_DIST, 'index.html')))
    throw new Error(`The dashboard is not built (${where}/index.html is missing): run \`npm run build\` before the browser tests`);
  if (!existsSync(DASHBOARD_STAMP) || readFileSync(DASHBOARD_STAMP, 'utf8') !== dashboardSourcesHash())
    throw new Error(`The dashboard in ${where} was built from other sources: run \`npm run build\` before the browser tests`);
}

/**
 * What the browser suites' one system runs with besides `npm start`'s defaults: a journal answer
 * examines at most a tenth of the default entries, so the books suite takes its screens through
 * the pages and requests of a journal ten times longer than it seeds; and webhooks may go to
 * private addresses (over http in live too), so the developers screen's endpoint reaches the
 * receiver its test runs on 127.0.0.1 (the refusal of such addresses is identity's tests' concern).
 */
export const SYSTEM_ENV = { LEDGER_JOURNAL_EXAMINE_MAX: '1000', WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true' } as const;

/** Starts `npm start`'s script detached, its output in `logFile`, and returns once the gateway is ready. */
async function startSystemProcess(logFile: string): Promise<{ pid: number; env: Record<string, string> }> {
  const env: NodeJS.ProcessEnv = { ...process.env, SYSTEM_API_KEY: SYSTEM_KEY, LOG_LEVEL: 'warn', ...SYSTEM_ENV };
  for (const service of ['gateway', 'identity', 'ledger', 'payments', 'treasury'])
    env[`${service.toUpperCase()}_DATABASE_URL`] = await createTestDatabase(`browser_${service}`, { migratedFor: service });
  env.AMQP_URL = await createTestVhost('browser', { keptForTheRun: true });
  await onFreePorts(env);
  delete env.DASHBOARD_URL;
  delete env.DASHBOARD_DIST;
  const log = openSync(logFile, 'a');
  // Its own process group, outliving this worker's test file: the global teardown stops the group.
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'scripts/start.ts')], {
    cwd: ROOT,
    env,
    stdio: ['ignore', log, log],
    detached: true,
  });
  closeSync(log);
  child.unref();
  const output = () => readFileSync(logFile, 'utf8');
  await waitFor(
    async () => {
      if (child.exitCode !== null) throw new Error(`npm start exited early:\n${output()}`);
      try {
        return (await fetch(`http://127.0.0.1:${env.GATEWAY_PORT}/readyz`)).ok ? true : undefined;
      } catch {
        return undefined;
      }
    },
    { timeoutMs: 90_000, intervalMs: 250, what: 'the system to be ready' },
  ).catch((error: unknown) => {
    if (child.exitCode === null) process.kill(-(child.pid as number), 'SIGKILL');
    throw error;
  });
  return {
    pid: child.pid as number,
    env: Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined)),
  };
}

export function passwordOf(role: DashboardRole): string {
  return `browser test passphrase of the ${role}`;
}

/**
 * The tenant as its platform operator and backend make it, through the API only: a fee schedule
 * (so statements carry fee lines with odd cents), a member of every role with a password, a
 * mobile money provider, and live wallets funded by signed webhooks. The dashboard logs into the
 * live environment by default, so everything is live.
 */
async function seedTenant(
  label: string,
  adminUrl: string,
  gatewayUrl: string,
): Promise<Pick<DashboardSystem, 'tenantId' | 'api' | 'members' | 'wallets'>> {
  const platform = new WalletClient({ baseUrl: adminUrl, auth: { type: 'system', systemKey: SYSTEM_KEY } });
  const slug = `${label.replace(/_/g, '-')}-${Date.now().toString(36)}`;
  const tenant = await platform.system.tenants.create({
    name: 'Browser Agents',
    slug,
    config: { defaultCurrency: CURRENCY, allowedCurrencies: [CURRENCY], maxTransactionAmount: '100000.00' },
  });
  const schedule = await platform.fees.tenantSchedules.create(tenant.id, {
    name: 'Standard',
    isDefault: true,
    platformCommissionBps: 2000,
  });
  await platform.fees.tenantSchedules.addRule(tenant.id, schedule.id, {
    transactionType: 'transfer',
    currencyCode: CURRENCY,
    flatFee: '0.25',
    percentageFee: '1',
    maxFee: '5.00',
  });
  await platform.fees.tenantSchedules.publish(tenant.id, schedule.id, { makeDefault: true });
  const key = await platform.apiKeys.createForTenant(tenant.id, { name: 'browser tests', scopes: ['tenant:manage'], environment: 'live' });
  const api = new WalletClient({ baseUrl: gatewayUrl, auth: { type: 'secret', apiKey: key.key as string } });

  const members = {} as Record<DashboardRole, Member>;
  for (const role of DASHBOARD_ROLES) {
    const email = `${role}@${slug}.example`;
    const member = await api.team.create({ name: `The ${role}`, email, password: passwordOf(role), orgRole: role });
    members[role] = { id: member.id, email, password: passwordOf(role) };
  }

  const provider = await api.momoProviders.create({ providerCode: 'mtn', name: 'MTN Mobile Money' });
  const fundedWallet = async (owner: string): Promise<Wallet> => {
    const wallet = await api.wallets.create({ ownerType: 'user', ownerId: `${owner}-${slug}`, currencyCode: CURRENCY });
    await momoDeposit(gatewayUrl, provider.webhookSecret, wallet, '5000.00');
    return wallet;
  };
  const busy = await fundedWallet('ada');
  const counterpart = await fundedWallet('bola');
  const spare = await fundedWallet('chidi');
  // Each transfer adds its amount and its fee to the sender's statement: more lines than one page of the API holds.
  const amounts = Array.from({ length: 120 }, (_, index) => `${1 + (index % 17)}.${String((index * 37) % 100).padStart(2, '0')}`);
  await inParallel(amounts, 4, (amount, index) => {
    const [from, to] = index % 5 === 4 ? [counterpart, busy] : [busy, counterpart];
    return api.transfers.create({ fromWalletId: from.id, toWalletId: to.id, amount, currencyCode: CURRENCY });
  });
  return {
    tenantId: tenant.id,
    api,
    members,
    wallets: { busy: await api.wallets.get(busy.id), counterpart: await api.wallets.get(counterpart.id), spare },
  };
}

/**
 * The run's shared system (started by the first suite to ask), a tenant of this suite's own
 * seeded in it, and Chromium; `close()` closes this suite's browser and connections, and the
 * global teardown stops the system.
 */
export async function startDashboardSystem(label: string): Promise<DashboardSystem> {
  requireBuiltApp();
  requireChromium();
  const { env } = await sharedSystem(process.env.WALLET_TEST_RUN_ID ?? 'local', startSystemProcess);
  const gatewayUrl = `http://127.0.0.1:${env.GATEWAY_PORT}`;
  const seeded = await seedTenant(label, `http://127.0.0.1:${env.ADMIN_PORT}`, gatewayUrl);
  const identityDb = createDb(env.IDENTITY_DATABASE_URL as string, { poolMax: 1 });
  let browser: Browser;
  try {
    browser = await launchChromium();
  } catch (error) {
    await identityDb.destroy();
    throw error;
  }
  return {
    ...seeded,
    dashboardUrl: `http://127.0.0.1:${env.DASHBOARD_PORT}`,
    gatewayUrl,
    ledgerDatabaseUrl: env.LEDGER_DATABASE_URL as string,
    identityDb,
    browser,
    close: async () => {
      await browser.close();
      await identityDb.destroy();
    },
  };
}

/** Waits until the screen's title is shown and no loading state (role="status", "Loading …") is left on it; fails on an error state. */
export async function settled(page: Page, heading?: string | RegExp): Promise<void> {
  await page
    .getByRole('heading', { level: 1, ...(heading ? { name: heading } : {}) })
    .or(page.getByRole('alert'))
    .first()
    .waitFor();
  const loading = page.getByRole('status').filter({ hasText: /…\s*$/ });
  const deadline = Date.now() + 15_000;
  while ((await loading.count()) > 0) {
    if (Date.now() > deadline) throw new Error(`still loading after 15 s: ${(await loading.allInnerTexts()).join(', ')}`);
    await page.waitForTimeout(100);
  }
  // A seeded screen has nothing to complain about: an error state here is a defect.
  const alerts = await page.getByRole('alert').allInnerTexts();
  if (alerts.length > 0) throw new Error(`${page.url()} shows an error: ${alerts.join(' | ')}`);
}

/**
 * Opens `path` of the dashboard signed out, which sends the browser to the login page, signs in
 * there as the member of that role and lands back on `path` (the overview by default), settled.
 */
export async function signIn(page: Page, system: DashboardSystem, role: DashboardRole, path = '/'): Promise<void> {
  await signInAt(page, system.dashboardUrl, system.members[role], path);
  await settled(page);
}

/** axe-core's serious and critical violations on the page as it is, each with its elements and why. */
export async function accessibilityViolations(page: Page, screenName: string): Promise<string[]> {
  // axe runs in the page itself (the dashboard has no frames, so nothing of frame-aware mode's
  // merging is needed), put there once per document: the app moves between screens without
  // reloading, and injecting axe's half megabyte of source (twice per check through
  // @axe-core/playwright's legacy mode) took more of a check's time than most checks.
  if (!(await page.evaluate(() => 'axe' in globalThis))) await page.evaluate(axe.source);
  // Only violations are read, so only they are detailed.
  const results = await page.evaluate(() => (globalThis as unknown as { axe: typeof axe }).axe.run({ resultTypes: ['violations'] }));
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(
      (violation) =>
        `${screenName}: ${violation.impact} ${violation.id}, ${violation.help}\n${violation.nodes.map((node) => `    ${node.target.join(' ')}: ${(node.failureSummary ?? '').replace(/\s+/g, ' ')}`).join('\n')}`,
    );
}

/** Fails on any serious or critical axe-core violation of the page as it is. */
export async function expectAccessible(page: Page, screenName: string): Promise<void> {
  const violations = await accessibilityViolations(page, screenName);
  if (violations.length > 0) throw new Error(`Accessibility violations:\n${violations.join('\n')}`);
}

/**
 * A full-page PNG in test-results/dashboard/, for a person to look at, when DASHBOARD_SCREENSHOTS
 * is set: no test reads them, and rendering and encoding some sixty full pages is a good part of
 * the browser suites' CPU.
 */
export async function screenshot(page: Page, name: string): Promise<string | undefined> {
  if (!process.env.DASHBOARD_SCREENSHOTS) return undefined;
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const file = path.join(SCREENSHOT_DIR, `${name.replace(/[^a-z0-9-]+/gi, '-').toLowerCase()}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/** What each page's Content-Security-Policy blocked, as the browser told the page (a `securitypolicyviolation` event). */
const cspViolations = new WeakMap<Page, string[]>();

/** The CSP violations a page of `newPage` has reported so far, each as `directive blocked what at where`. */
export function cspViolationsOf(page: Page): string[] {
  return [...(cspViolations.get(page) ?? [])];
}

interface ViolationEvent {
  effectiveDirective: string;
  blockedURI: string;
  sourceFile: string;
  lineNumber: number;
}

/**
 * Records every CSP violation of the context's pages. A blocked eval caught by the code that
 * tried it breaks nothing visible, so only the browser's event shows it; the page reports it
 * through a binding, which outlives the page's own navigations.
 */
async function recordCspViolations(context: BrowserContext): Promise<void> {
  await context.exposeBinding('reportCspViolation', ({ page }, text: string) => {
    cspViolations.set(page, [...(cspViolations.get(page) ?? []), text]);
  });
  await context.addInitScript(() => {
    const window = globalThis as unknown as {
      reportCspViolation(text: string): void;
      document: { addEventListener(type: string, listener: (event: ViolationEvent) => void): void };
    };
    window.document.addEventListener('securitypolicyviolation', (event) => {
      window.reportCspViolation(`${event.effectiveDirective} blocked ${event.blockedURI} at ${event.sourceFile}:${event.lineNumber}`);
    });
  });
}

/** The phone every screen and dialog is also checked at. */
export const PHONE = { width: 390, height: 844 } as const;

/** How wide the document is laid out: wider than the viewport means the page scrolls sideways. */
export function documentWidth(page: Page): Promise<number> {
  return page.evaluate(
    () => (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document.documentElement.scrollWidth,
  );
}

/**
 * A file's axe log: `look` checks the screen as it is and keeps a screenshot of it under the
 * file's prefix; `violations` gathers what every look found, asserted empty at the end.
 */
export function axeLog(prefix: string): { look(page: Page, name: string): Promise<void>; violations: string[] } {
  const violations: string[] = [];
  return {
    violations,
    async look(page, name) {
      violations.push(...(await accessibilityViolations(page, name)));
      await screenshot(page, `${prefix}-${name}`);
    },
  };
}

export interface DashboardSuite {
  /** The file's system, once its beforeAll has started it. */
  readonly system: DashboardSystem;
  /**
   * A fresh browser profile's worth of state (no cookies, no storage), closed after the test; its
   * CSP violations in cspViolationsOf. The suite's window (1440 wide: a finance team's screen), or `viewport` (a phone's).
   */
  newPage(viewport?: { width: number; height: number }): Promise<Page>;
  /** A new page signed in as the role's member, on `path` (its landing screen by default). */
  pageAs(role: DashboardRole, viewport?: { width: number; height: number }, path?: string): Promise<Page>;
}

/**
 * The run's system with a tenant of the file's own (seeded before its tests) and pages in fresh
 * browser contexts, each closed after its test. Reduced motion: axe judges no dialog mid-fade.
 */
export function dashboardSuite(label: string, view: { height: number; locale?: string }): DashboardSuite {
  let system: DashboardSystem | undefined;
  const contexts: BrowserContext[] = [];
  beforeAll(async () => {
    system = await startDashboardSystem(label);
  }, 240_000);
  afterAll(async () => {
    await system?.close();
  });
  afterEach(async () => {
    for (const context of contexts.splice(0)) await context.close();
  });
  return {
    get system() {
      if (!system) throw new Error(`the ${label} system has not started`);
      return system;
    },
    async pageAs(role, viewport, path) {
      const page = await this.newPage(viewport);
      await signIn(page, this.system, role, path);
      return page;
    },
    async newPage(viewport) {
      if (!system) throw new Error(`the ${label} system has not started`);
      const context = await system.browser.newContext({
        reducedMotion: 'reduce',
        viewport: viewport ?? { width: 1440, height: view.height },
        timezoneId: 'Africa/Kampala',
        ...(view.locale ? { locale: view.locale } : {}),
      });
      contexts.push(context);
      context.setDefaultTimeout(15_000);
      await recordCspViolations(context);
      return context.newPage();
    },
  };
}
