import { WhoamiResponseDto } from '@svc/contracts';
import { queryOne, queryRows } from '@svc/persistence';
import { ChatVisitor, Stack, startStack } from '@svc/testing';
import { setTimeout as sleep } from 'node:timers/promises';
import { textsFor } from '../texts/texts';

const TRIES = 3;
/** Names of Object.prototype's properties: a language that is one is an unknown language, never a key. */
const KEY_NAMES = ['__proto__', 'constructor', 'toString'];

describe('the assistant: languages from outside are data; a reply that keeps failing stops (processes)', () => {
  let stack: Stack;
  let widget: string;

  const messages = async (visitor: ChatVisitor) =>
    ((await (await visitor.call('/conversation')).json()) as { messages: Array<{ author: string; text: string; offers_person: boolean }> })
      .messages;

  beforeAll(async () => {
    stack = await startStack(['contacts-api', 'knowledge-api', 'events-api', 'chat'], {
      appEnv: { chat: { ASSISTANT_REPLY_TRIES: String(TRIES) } },
    });
    widget = ((await (await stack.call('/whoami')).json()) as WhoamiResponseDto).widget;
    const put = await stack.call('/knowledge/returns', {
      method: 'PUT',
      json: { heading: 'Returns and refunds', text: 'You can return any item within 30 days of delivery for a full refund.' },
    });
    expect(put.status).toBe(201);
  }, 300_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it.each(KEY_NAMES)(
    'Accept-Language: %s is an unknown language: the conversation is English and gets an English answer',
    async (lang) => {
      const visitor = new ChatVisitor(stack.gateway.url, { 'accept-language': lang });
      const { status, body } = await visitor.session({ widget });
      expect(status).toBe(201);
      const row = await queryOne<{ lang: string }>(stack.dataSource, 'SELECT lang FROM chat.conversations WHERE id = $1', [
        body.conversation.id,
      ]);
      expect(row?.lang).toBe('en');
      const texts = await visitor.call('/texts');
      expect(texts.status).toBe(200);
      expect(((await texts.json()) as { lang: string }).lang).toBe('en');
      const stream = await visitor.stream();
      await visitor.send('How do I return an item?');
      const answer = await stream.waitForMessage((m) => m.author === 'assistant', 20_000);
      await stream.close();
      expect(answer.citation?.external_ref).toBe('returns');
      expect(answer.text.startsWith(textsFor('en').answer_intro)).toBe(true);
    },
    60_000,
  );

  it('a conversation stored with such a language (before this was fixed) is answered in English, and so are the questions asked with it', async () => {
    const visitors = Array.from({ length: 6 }, () => new ChatVisitor(stack.gateway.url));
    const sessions = await Promise.all(visitors.map((visitor) => visitor.session({ widget })));
    const poisoned = sessions.slice(0, KEY_NAMES.length).map((session) => session.body.conversation.id);
    for (const [i, id] of poisoned.entries())
      await queryRows(stack.dataSource, 'UPDATE chat.conversations SET lang = $2 WHERE id = $1', [id, KEY_NAMES[i]]);
    const streams = await Promise.all(visitors.map((visitor) => visitor.stream()));
    await Promise.all(visitors.map((visitor, i) => visitor.send(`Can I return item ${i}?`)));
    const answers = await Promise.all(streams.map((stream) => stream.waitForMessage((m) => m.author === 'assistant', 20_000)));
    await Promise.all(streams.map((stream) => stream.close()));
    for (const answer of answers) {
      expect(answer.citation?.external_ref).toBe('returns');
      expect(answer.text.startsWith(textsFor('en').answer_intro)).toBe(true);
    }
  }, 60_000);

  // Last: it stops knowledge-api.
  it(`a search that always fails (knowledge-api stopped): after ${TRIES} tries the assistant says it could not answer, offers a person, and stops`, async () => {
    const english = new ChatVisitor(stack.gateway.url, { 'accept-language': 'en-GB' });
    const german = new ChatVisitor(stack.gateway.url, { 'accept-language': 'de-DE' });
    const ids = await Promise.all([english, german].map(async (visitor) => (await visitor.session({ widget })).body.conversation.id));
    const streams = await Promise.all([english.stream(), german.stream()]);
    await stack.services['knowledge-api']!.stop('SIGKILL');
    const started = Date.now();
    await Promise.all([english.send('Can I return my order?'), german.send('Kann ich meine Bestellung zurückgeben?')]);
    const [inEnglish, inGerman] = await Promise.all(
      streams.map((stream) => stream.waitForMessage((m) => m.author === 'assistant', 60_000)),
    );
    // Not at the first failure: after the tries, each after the sweep's delay.
    expect(Date.now() - started).toBeGreaterThan(5_000);
    expect(inEnglish).toMatchObject({ text: textsFor('en').no_answer, citation: null, offers_person: true });
    expect(inGerman).toMatchObject({ text: textsFor('de').no_answer, citation: null, offers_person: true });
    const rows = await queryRows<{ reply_pending: boolean; reply_failures: number }>(
      stack.dataSource,
      `SELECT reply_pending, reply_failures FROM chat.messages WHERE conversation_id = ANY($1::bigint[]) AND author = 'customer'`,
      [ids],
    );
    expect(rows).toEqual([
      { reply_pending: false, reply_failures: TRIES },
      { reply_pending: false, reply_failures: TRIES },
    ]);
    // No more tries: two sweeps later nothing else was written or counted.
    await sleep(5_000);
    await Promise.all(streams.map((stream) => stream.close()));
    for (const visitor of [english, german]) expect((await messages(visitor)).map((m) => m.author)).toEqual(['customer', 'assistant']);
    const after = await queryRows<{ reply_failures: number }>(
      stack.dataSource,
      `SELECT reply_failures FROM chat.messages WHERE conversation_id = ANY($1::bigint[]) AND author = 'customer'`,
      [ids],
    );
    expect(after.map((row) => row.reply_failures)).toEqual([TRIES, TRIES]);
  }, 90_000);
});
