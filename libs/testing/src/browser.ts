import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';

/** Debian's chromium package, installed by scripts/install-test-tools.sh (npm test runs it). */
export const CHROMIUM_PATH = '/usr/bin/chromium';

/** Headless and quiet: no GPU, no QUIC, no first-run, background, update or sync traffic. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface TestBrowser {
  /** One browser profile: pages share its storage (localStorage keeps a widget's token across reloads). */
  context: BrowserContext;
  close(): Promise<void>;
}

/** Real Chromium with a fresh user-data-dir, driven by playwright-core; close() removes the profile. */
export async function launchBrowser(): Promise<TestBrowser> {
  const { chromium } = await import('playwright-core');
  const dir = await mkdtemp(join(tmpdir(), 'svc-chromium-'));
  const context = await chromium.launchPersistentContext(dir, {
    executablePath: CHROMIUM_PATH,
    args: CHROMIUM_ARGS,
    headless: true,
    viewport: { width: 1200, height: 800 },
  });
  return {
    context,
    close: async () => {
      await context.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export interface PageServer {
  /** `http://127.0.0.1:port`: an origin of its own, like a business's website. */
  url: string;
  close(): Promise<void>;
}

/** A tiny website on its own origin: `page(request)` returns the HTML of each request. */
export async function servePages(page: (request: IncomingMessage) => string): Promise<PageServer> {
  const server = createServer((request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(page(request));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

/** A business's page with the contract's embed: `window.SvcChat` first, then `{app_url}/chat/widget.js` async. */
export function embedPage(appUrl: string, settings: { widget: string; identity?: string }, title = 'A business'): string {
  const json = JSON.stringify(settings).replace(/</g, '\\u003c');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body><h1>${title}</h1><script>window.SvcChat = ${json};</script><script src="${appUrl}/chat/widget.js" async></script></body></html>`;
}

/**
 * The few browser globals tests read inside `page.evaluate` (the callback runs in the page; the
 * Node type check has no DOM library, so it is typed here).
 */
export interface PageGlobals {
  localStorage: { getItem(key: string): string | null; setItem(key: string, value: string): void; clear(): void };
  document: { body: { children: ArrayLike<{ tagName: string; shadowRoot: unknown }> } };
}

/** The page origin's localStorage, read and written from the test. */
export const storage = {
  get: (page: Page, key: string): Promise<string | null> =>
    page.evaluate((k) => (globalThis as unknown as PageGlobals).localStorage.getItem(k), key),
  set: (page: Page, key: string, value: string): Promise<void> =>
    page.evaluate(([k, v]) => (globalThis as unknown as PageGlobals).localStorage.setItem(k!, v!), [key, value]),
  clear: (page: Page): Promise<void> => page.evaluate(() => (globalThis as unknown as PageGlobals).localStorage.clear()),
};

/**
 * Follows a console's one-time sign-in link (`admin user create`'s, an invitation's) on `page` and sets `password`;
 * resolves once the console shows its inbox, signed in. `onForm`, when given, runs on the set-password page before it
 * is filled (a test's own checks of that page).
 */
export async function signInFromLink(page: Page, link: string, password: string, onForm?: () => Promise<void>): Promise<void> {
  const heading = (name: string) => page.getByRole('heading', { level: 1, name });
  await page.goto(link);
  await heading('Set your password').waitFor();
  await onForm?.();
  await page.getByRole('textbox', { name: 'Password' }).fill(password);
  await page.getByRole('button', { name: 'Set password' }).click();
  await heading('Inbox').waitFor();
}
