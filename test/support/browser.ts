/**
 * Debian's Chromium (/usr/bin/chromium, installed by scripts/ensure-chromium.sh), driven headless by
 * playwright-core: nothing downloads a browser. Each test file gets a fresh profile, removed after.
 */
import { copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BrowserContext, chromium, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
/** The network is closed here: nothing in the background may try to reach it. */
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Where screenshots go: test artifacts, and docs/console when SWF_CONSOLE_DOCS=1. */
export const ARTIFACTS = join(ROOT, 'test', 'artifacts', 'console');
const DOCS = join(ROOT, 'docs', 'console');

export interface Browser {
  readonly context: BrowserContext;
  readonly page: Page;
  /** Errors the page threw: a test ends by checking there were none. */
  readonly pageErrors: string[];
  close(): Promise<void>;
}

export async function openBrowser(): Promise<Browser> {
  const profile = await mkdtemp(join(tmpdir(), 'swf-console-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
    viewport: { width: 1400, height: 860 },
    deviceScaleFactor: 1,
    timezoneId: 'UTC',
    locale: 'en-US',
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  return {
    context,
    page,
    pageErrors,
    close: async () => {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/**
 * Saves a screenshot of the page as a test artifact; one that `docs` shows is also written into
 * docs/console when SWF_CONSOLE_DOCS=1 (how the documentation's pictures are made).
 */
export async function screenshot(page: Page, name: string, docs = false): Promise<string> {
  await mkdir(ARTIFACTS, { recursive: true });
  const file = join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path: file });
  if (docs && process.env.SWF_CONSOLE_DOCS === '1') {
    await mkdir(DOCS, { recursive: true });
    await copyFile(file, join(DOCS, `${name}.png`));
  }
  return file;
}
