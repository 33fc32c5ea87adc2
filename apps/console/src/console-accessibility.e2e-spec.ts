import type { WhoamiResponseDto } from '@svc/contracts';
import { adminUserCreate, ChatVisitor, freePort, launchBrowser, signInFromLink, Stack, startStack, TestBrowser } from '@svc/testing';
import type { AxeResults, ElementContext, RunOptions } from 'axe-core';
import { readFileSync } from 'node:fs';
import type { Locator, Page } from 'playwright-core';

const PASSWORD = 'correct horse battery staple';
/** WCAG 2.0 and 2.1, levels A and AA: the rules axe-core runs here. */
const WCAG_21_AA: RunOptions = { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } };
/** axe-core's browser build, evaluated in each page checked. */
const AXE_SOURCE = readFileSync(require.resolve('axe-core'), 'utf8');

/** The violations, one line per rule and one per element it found, for a failure message a person can act on. */
const readable = (violations: AxeResults['violations']): string =>
  violations
    .map(
      (v) =>
        `${v.id} (${v.impact ?? 'unknown'}): ${v.help} ${v.helpUrl}\n` +
        v.nodes.map((node) => `  ${node.target.join(' ')}\n    ${node.failureSummary?.replace(/\n/g, '\n    ') ?? ''}`).join('\n'),
    )
    .join('\n');

/** Runs axe-core's WCAG 2.1 AA rules on the page as it is now (open shadow roots included). */
async function runAxe(page: Page): Promise<AxeResults> {
  // Evaluated over the DevTools protocol, which the console's Content-Security-Policy (scripts from its origin only) does not
  // govern: the inline <script> of page.addScriptTag is refused by it.
  await page.evaluate(AXE_SOURCE);
  return page.evaluate((options) => {
    const g = globalThis as unknown as { axe: typeof import('axe-core'); document: ElementContext };
    return g.axe.run(g.document, options);
  }, WCAG_21_AA);
}

/** The page's WCAG 2.1 AA violations, readable ('' when there is none). */
const wcagViolations = async (page: Page): Promise<string> => readable((await runAxe(page)).violations);

describe("the console's pages and the chat widget pass axe-core's WCAG 2.1 AA rules in real Chromium", () => {
  // A browser and six processes on a loaded 2-core machine: generous.
  jest.setTimeout(180_000);
  let stack: Stack;
  let browser: TestBrowser;
  let page: Page;
  let appUrl: string;
  let conversationId: number;

  const heading = (name: string | RegExp) => page.getByRole('heading', { level: 1, name });
  /** Opens a page, waits for its heading and for `ready` (its data shown), then checks it. */
  const check = async (path: string, title: string | RegExp, ready: (page: Page) => Locator) => {
    await page.goto(`${appUrl}${path}`);
    await heading(title).waitFor();
    await ready(page).first().waitFor();
    expect(await wcagViolations(page)).toBe('');
  };

  beforeAll(async () => {
    const gatewayPort = String(await freePort());
    appUrl = `http://127.0.0.1:${gatewayPort}`;
    stack = await startStack(['contacts-api', 'knowledge-api', 'webhook-dispatcher', 'chat', 'console'], {
      env: { OUTBOX_POLL_INTERVAL_MS: '200', APP_URL: appUrl },
      startTimeoutMs: 120_000,
      appEnv: { gateway: { PORT: gatewayPort } },
    });
    expect(
      (
        await stack.call('/knowledge/returns', {
          method: 'PUT',
          json: {
            heading: 'Returns and refunds',
            text: 'You can return any item within 30 days of delivery for a full refund.',
            url: 'https://shop.example/returns',
          },
        })
      ).status,
    ).toBe(201);

    // A conversation from the widget's visitor API: the customer's question and the assistant's answer citing the piece.
    const { widget } = (await (await stack.call('/whoami')).json()) as WhoamiResponseDto;
    const visitor = new ChatVisitor(appUrl);
    conversationId = (await visitor.session({ widget })).body.conversation.id;
    const stream = await visitor.stream();
    await visitor.send('How do I return an item?');
    await stream.waitForMessage((m) => m.author === 'assistant');
    await stream.close();

    // An owner (every Settings page), signed in through the one-time link as an operator's `admin user create` gives it.
    const run = adminUserCreate(stack, 'ana@shop.example');
    expect(run.stderr).toBe('');
    browser = await launchBrowser();
    page = await browser.context.newPage();
    await signInFromLink(page, (JSON.parse(run.stdout) as { sign_in_url: string }).sign_in_url, PASSWORD, async () => {
      expect(await wcagViolations(page)).toBe('');
    });
  }, 600_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it('the conversation page (messages of the customer, the assistant and the team; the customer panel) has no violation', async () => {
    await page.goto(`${appUrl}/inbox/${conversationId}`);
    await heading(/^Conversation with/).waitFor();
    await page.getByRole('textbox', { name: 'Reply' }).fill('Hello from the team: happy to help with your return.');
    await page.getByRole('button', { name: 'Send reply' }).click();
    await check(`/inbox/${conversationId}`, /^Conversation with/, (p) =>
      p.getByRole('log', { name: 'Messages' }).getByText('Hello from the team: happy to help with your return.'),
    );
  });

  it('the inbox and the knowledge page (with an answer of "Ask as a customer") have no violation', async () => {
    await check('/inbox', 'Inbox', (p) => p.getByRole('list', { name: 'Conversations' }).locator(`a[href="/inbox/${conversationId}"]`));
    await check('/knowledge', 'Knowledge', (p) => p.getByRole('cell', { name: 'Returns and refunds' }));
    await page.getByRole('textbox', { name: 'Question' }).fill('How do I return an item?');
    await page.getByRole('button', { name: 'Ask' }).click();
    await page.getByRole('status').getByText('The assistant would answer:').waitFor();
    expect(await wcagViolations(page)).toBe('');
  });

  it('the settings pages (keys, webhooks, widget, plan, team) have no violation', async () => {
    await check('/settings/keys', 'API and MCP keys', (p) => p.getByRole('table', { name: 'Active keys' }));
    await check('/settings/webhooks', 'Webhooks', (p) => p.getByRole('status').getByText('No endpoints yet.'));
    await check('/settings/widget', 'Widget', (p) => p.getByRole('textbox', { name: 'Allowed origins' }));
    await check('/settings/plan', 'Plan', (p) => p.getByRole('table', { name: 'Plans' }));
    await check('/settings/members', 'Team', (p) => p.getByRole('table', { name: 'Team members' }));
  });

  it('the other pages of the navigation (customers, bookings, analytics with its charts) have no violation', async () => {
    await check('/customers', 'Customers', (p) => p.getByRole('textbox', { name: 'Search' }));
    await check('/bookings', 'Bookings', (p) => p.getByRole('status').getByText('No bookings.'));
    await check('/analytics', 'Analytics', (p) => p.getByRole('table', { name: 'Most cited pieces' }));
  });

  it("the chat widget (in its open shadow root) on the chat's demo page, open with a cited answer, has no violation", async () => {
    await stack.restart('chat', 'SIGTERM', { CHAT_DEMO_KEY: stack.account.key });
    const shop = await browser.context.newPage();
    await shop.goto(`${appUrl}/chat/demo?as=anonymous`);
    await shop.getByRole('button', { name: 'Chat', exact: true }).click();
    await shop.getByRole('textbox', { name: 'Message' }).fill('How do I return an item?');
    await shop.getByRole('button', { name: 'Send', exact: true }).click();
    await shop.getByRole('log').getByRole('link', { name: 'Returns and refunds' }).waitFor();
    const results = await runAxe(shop);
    expect(readable(results.violations)).toBe('');
    // The widget itself was checked: axe names an element inside a shadow root by the path [host, inner].
    expect(results.passes.some((rule) => rule.nodes.some((node) => Array.isArray(node.target[0])))).toBe(true);
    await shop.close();
  });
});
