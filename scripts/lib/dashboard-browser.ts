import { existsSync } from 'node:fs';
import { type Browser, chromium, type Page } from 'playwright-core';

/**
 * Debian's Chromium driven by playwright-core (test tools' browser downloads are not used): what
 * the dashboard's browser tests and its benchmark run. Its headless shell (package
 * chromium-headless-shell, the same Blink as the browser, and what Playwright itself runs headless)
 * when installed: two browser suites took a third less CPU with it (docs/testing.md); else the browser.
 */
const HEADLESS_SHELL = '/usr/lib/chromium/chromium-headless-shell';
const BROWSER = '/usr/bin/chromium';
export const CHROMIUM = existsSync(HEADLESS_SHELL) ? HEADLESS_SHELL : BROWSER;
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export function requireChromium(): void {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `${BROWSER} is missing: install Debian's chromium package (apt-get install chromium chromium-headless-shell); .ci/run does`,
    );
}

export function launchChromium(): Promise<Browser> {
  requireChromium();
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
}

/**
 * Opens `path` of the dashboard signed out, which sends the browser to the login page, signs in
 * there and waits until it is back on `path` with the main navigation shown. `/` is where a role
 * lands, the overview or (a role that reads none of it) its first screen.
 */
export async function signInAt(page: Page, dashboardUrl: string, member: { email: string; password: string }, path = '/'): Promise<void> {
  await page.goto(`${dashboardUrl}${path}`);
  await page.getByLabel('Email').fill(member.email);
  await page.getByLabel(/^Password/).fill(member.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((url) => (path === '/' ? url.pathname !== '/login' : `${url.pathname}${url.search}` === path));
  await page.getByRole('navigation', { name: 'Main' }).waitFor();
}
