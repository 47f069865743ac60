import { existsSync } from 'node:fs';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';

/** Debian's Chromium (`apt-get install chromium`, done by .ci/run); CHROMIUM_PATH overrides. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * A headless Chromium for tests that look at a page as a person would. `--no-sandbox` because
 * tests run as root in CI; every network request leaves only for the loopback test servers.
 */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) throw new Error(`No Chromium at ${CHROMIUM_PATH}: apt-get install -y chromium (see .ci/run)`);
  return puppeteer.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu', '--no-first-run', '--disable-extensions'],
  });
}

/** Opens `url` in a fresh page of a desktop size and waits until the network is idle. */
export async function openPage(
  browser: Browser,
  url: string,
  viewport = { width: 1100, height: 800 },
): Promise<{ page: Page; status: number }> {
  const page = await browser.newPage();
  await page.setViewport(viewport);
  const response = await page.goto(url, { waitUntil: 'networkidle0', timeout: 20_000 });
  return { page, status: response?.status() ?? 0 };
}
