// Local stand-ins for the chat's channels, for a development machine (`npm start` runs them; also
// usable alone). Nothing here runs in production.
//
//   node tools/dev-channels.mjs                 an SMTP sink on 127.0.0.1:1025 (the chat's default SMTP_URL)
//                                               with the mail it received at http://localhost:1080, and a
//                                               fake WhatsApp Cloud API on http://127.0.0.1:3907 (GET /sent lists
//                                               what the chat sent)
//   node tools/dev-channels.mjs whatsapp --from +4915112345678 --text "Hello" [--id wamid.X]
//                                               posts a signed inbound message to the chat's webhook
//
// Both read WHATSAPP_APP_SECRET (default `dev-whatsapp-app-secret-0123456789`, what `npm start` gives the chat),
// WHATSAPP_PHONE_NUMBER_ID (default `100000000000001`: connect it with `admin whatsapp connect`) and
// PORT (the gateway, 3000).
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
/** @type {typeof import('../libs/testing/src/fake-whatsapp.js')} */
const { FakeWhatsapp } = require(join(root, 'dist/libs/testing/src/fake-whatsapp.js'));
/** @type {typeof import('../libs/testing/src/mail-sink.js')} */
const { MailSink } = require(join(root, 'dist/libs/testing/src/mail-sink.js'));

export const DEV_WHATSAPP = {
  appSecret: process.env.WHATSAPP_APP_SECRET || 'dev-whatsapp-app-secret-0123456789',
  verifyToken: process.env.WHATSAPP_VERIFY_TOKEN || 'dev-verify-token',
  phoneNumberId: process.env.WHATSAPP_PHONE_NUMBER_ID || '100000000000001',
  apiPort: 3907,
};
const webhookUrl = `http://127.0.0.1:${process.env.PORT ?? '3000'}/chat/whatsapp/webhook`;
/** @type {Record<string, string>} */
const ENTITIES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };
/** @param {unknown} text */
const escape = (text) => String(text ?? '').replace(/[&<>"]/g, (c) => ENTITIES[c]);

/**
 * Starts the SMTP sink (+ its page on 1080) and the fake Cloud API; returns what to set in the chat's environment.
 * @param {(line: string) => unknown} [log]
 */
export async function startDevChannels(log = (line) => process.stdout.write(`${line}\n`)) {
  const sink = await MailSink.start(1025);
  const page = createServer((_request, response) => {
    const items = [...sink.received]
      .reverse()
      .map(
        (m) =>
          `<article><h2>${escape(m.subject)}</h2><p>To ${escape(Array.isArray(m.to) ? undefined : m.to?.text)} · ${escape(m.date?.toISOString())}</p><pre>${escape(m.text)}</pre></article>`,
      )
      .join('<hr>');
    response
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end(`<!doctype html><title>Mail sink</title><h1>Mail received (${sink.received.length})</h1>${items}`);
  });
  await new Promise((r) => page.listen(1080, '127.0.0.1', () => r(undefined)));
  const fake = await FakeWhatsapp.start({
    webhookUrl,
    appSecret: DEV_WHATSAPP.appSecret,
    phoneNumberId: DEV_WHATSAPP.phoneNumberId,
    port: DEV_WHATSAPP.apiPort,
  });
  log(
    `Mail the chat sends (SMTP 127.0.0.1:1025): http://localhost:1080 · fake WhatsApp Cloud API: ${fake.url} (what was sent: ${fake.url}/sent)`,
  );
  return {
    env: {
      SMTP_URL: sink.url,
      WHATSAPP_API_URL: fake.url,
      WHATSAPP_APP_SECRET: DEV_WHATSAPP.appSecret,
      WHATSAPP_VERIFY_TOKEN: DEV_WHATSAPP.verifyToken,
    },
    stop: async () => {
      await Promise.all([sink.stop(), fake.stop(), new Promise((r) => page.close(r))]);
    },
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: { from: { type: 'string' }, text: { type: 'string' }, id: { type: 'string' } },
  });
  if (positionals[0] === 'whatsapp') {
    if (!values.from || !values.text) throw new Error('usage: node tools/dev-channels.mjs whatsapp --from +E164 --text "…" [--id wamid.X]');
    const fake = await FakeWhatsapp.start({ webhookUrl, appSecret: DEV_WHATSAPP.appSecret, phoneNumberId: DEV_WHATSAPP.phoneNumberId });
    const result = await fake.sendInbound({ from: values.from, text: values.text, id: values.id });
    await fake.stop();
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } else {
    await startDevChannels();
  }
}
