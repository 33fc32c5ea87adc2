import { WhoamiResponseDto } from '@svc/contracts';
import { adminUserCreate, ChatVisitor, freePort, launchBrowser, signInFromLink, Stack, startStack, TestBrowser } from '@svc/testing';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Page } from 'playwright-core';

const PASSWORD = 'correct horse battery staple';

describe('console in real Chromium: Teach from a conversation, the assistant answers so, Remove on the Knowledge page', () => {
  jest.setTimeout(240_000);
  let stack: Stack;
  let browser: TestBrowser;
  let page: Page;
  let appUrl: string;

  const heading = (name: string | RegExp) => page.getByRole('heading', { level: 1, name });
  /** A customer's question in the chat; resolves with the conversation once the assistant has answered it. */
  const customerAsks = async (question: string): Promise<number> => {
    const widget = ((await (await stack.call('/whoami')).json()) as WhoamiResponseDto).widget;
    const visitor = new ChatVisitor(appUrl);
    expect((await visitor.session({ widget })).status).toBe(201);
    await visitor.send(question);
    const deadline = Date.now() + 20_000;
    for (;;) {
      const state = (await (await visitor.call('/conversation')).json()) as {
        conversation: { id: number };
        messages: Array<{ author: string }>;
      };
      if (state.messages.some((m) => m.author === 'assistant')) return state.conversation.id;
      if (Date.now() > deadline) throw new Error('the assistant did not answer');
      await sleep(100);
    }
  };
  /** What "Ask as a customer" on the Knowledge page (opened afresh) says the assistant would answer from. */
  const preview = async (question: string): Promise<string> => {
    await page.goto(`${appUrl}/knowledge`);
    await heading('Knowledge').waitFor();
    await page.getByRole('textbox', { name: 'Question' }).fill(question);
    await page.getByRole('button', { name: 'Ask', exact: true }).click();
    const status = page.getByRole('status').filter({ hasText: 'The assistant would answer' });
    await status.waitFor();
    return (await status.textContent()) ?? '';
  };
  /** Teach on the conversation's customer message: the dialog starts on `first` (the piece cited in the answer), `piece` is chosen. */
  const teachFrom = async (conversationId: number, first: string, piece: string) => {
    await page.goto(`${appUrl}/inbox/${conversationId}`);
    await heading(/^Conversation with/).waitFor();
    const messages = page.getByRole('log', { name: 'Messages' });
    await messages.getByRole('button', { name: 'Teach' }).click();
    const dialog = page.getByRole('dialog', { name: 'Teach the assistant' });
    await dialog.waitFor();
    const select = dialog.getByRole('combobox', { name: 'Piece' });
    await dialog.getByRole('option', { name: 'Opening hours (hours)' }).waitFor({ state: 'attached' });
    await expect(select.locator('option:checked').textContent()).resolves.toBe(first);
    await select.selectOption({ label: piece });
    // Keyboard: the dialog's own button, focused, and Enter.
    await dialog.getByRole('button', { name: 'Teach' }).focus();
    await page.keyboard.press('Enter');
    await dialog.waitFor({ state: 'hidden' });
    return (await page.getByRole('status').filter({ hasText: 'Taught' }).textContent()) ?? '';
  };

  beforeAll(async () => {
    const gatewayPort = String(await freePort());
    appUrl = `http://127.0.0.1:${gatewayPort}`;
    stack = await startStack(['contacts-api', 'knowledge-api', 'chat', 'console'], {
      env: { APP_URL: appUrl },
      startTimeoutMs: 120_000,
      appEnv: { gateway: { PORT: gatewayPort }, chat: { HANDOVER_WAIT: '1h' } },
    });
    const put = (ref: string, heading: string, text: string) => stack.call(`/knowledge/${ref}`, { method: 'PUT', json: { heading, text } });
    expect((await put('bikes', 'Bicycle hire', 'We hire out city bicycles by the day, helmets included.')).status).toBe(201);
    expect((await put('hours', 'Opening hours', 'The shop opens at nine and closes at six, Monday to Saturday.')).status).toBe(201);
    browser = await launchBrowser();
    page = await browser.context.newPage();
    const run = adminUserCreate(stack, 'tea@shop.example');
    expect(run.status).toBe(0);
    await signInFromLink(page, (JSON.parse(run.stdout) as { sign_in_url: string }).sign_in_url, PASSWORD);
  }, 600_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it('a question the assistant could not answer, taught from the conversation, is then answered from the piece; Remove takes it back', async () => {
    const unanswered = await customerAsks('Can my kid borrow a tandem?');
    expect(await preview('Can my kid borrow a tandem?')).toContain('No piece matches');

    expect(await teachFrom(unanswered, 'No piece answers this', 'Bicycle hire (bikes)')).toContain('answered from bikes');

    expect(await preview('Can my kid borrow a tandem?')).toContain('Citing “Bicycle hire” (bikes)');
    expect(await preview('could my kid borrow your tandem')).toContain('Citing “Bicycle hire” (bikes)');
    // The customer asking again in the chat gets the piece.
    const widget = ((await (await stack.call('/whoami')).json()) as WhoamiResponseDto).widget;
    const again = new ChatVisitor(appUrl);
    await again.session({ widget });
    await again.send('Can my kid borrow a tandem?');
    const deadline = Date.now() + 20_000;
    let cited: string | undefined;
    while (cited === undefined && Date.now() < deadline) {
      const state = (await (await again.call('/conversation')).json()) as {
        messages: Array<{ author: string; citation: { external_ref: string } | null }>;
      };
      const answer = state.messages.find((m) => m.author === 'assistant');
      if (answer) cited = answer.citation?.external_ref ?? 'none';
      else await sleep(100);
    }
    expect(cited).toBe('bikes');

    const taught = page.getByRole('region', { name: 'Taught answers' });
    await page.getByRole('heading', { level: 2, name: 'Taught answers' }).waitFor();
    const row = taught.getByRole('row').filter({ hasText: 'Can my kid borrow a tandem?' });
    await expect(row.textContent()).resolves.toContain('bikes');
    await row.getByRole('button', { name: 'Remove' }).click();
    await taught.getByRole('status').filter({ hasText: 'Removed' }).waitFor();
    await expect(taught.getByRole('row').filter({ hasText: 'Can my kid borrow a tandem?' }).count()).resolves.toBe(0);
    expect(await preview('Can my kid borrow a tandem?')).toContain('No piece matches');
  });

  it('a question answered from a piece, taught "No piece answers this", is then answered by nothing (a person is offered)', async () => {
    const answered = await customerAsks('When does the shop open on Saturday?');
    expect(await preview('When does the shop open on Saturday?')).toContain('Citing “Opening hours” (hours)');

    expect(await teachFrom(answered, 'Opening hours (hours)', 'No piece answers this')).toContain('no piece answers this question');
    expect(await preview('When does the shop open on Saturday?')).toContain('No piece matches');
    const row = page.getByRole('region', { name: 'Taught answers' }).getByRole('row').filter({ hasText: 'When does the shop open' });
    await expect(row.textContent()).resolves.toContain('No piece answers this');
  });
});
