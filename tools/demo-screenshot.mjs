// node tools/demo-screenshot.mjs (after `npm run build`): renews docs/chat-widget-demo.png, the
// widget open on the demo page with one question answered, then "Talk to a person" and, nobody from
// the team answering, how to reach the visitor: WhatsApp chosen (the sample customer's number
// offered back) with its two consent boxes. The apps run as processes on a
// throw-away database (the test harness's startStack), the demo seeded as `npm start` seeds it,
// in Debian's Chromium.
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { seed } from './demo.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
/** @type {typeof import('../libs/testing/src/index.js')} */
const { startStack, launchBrowser } = require(join(root, 'dist/libs/testing/src/index.js'));

const stack = await startStack(['contacts-api', 'identity-issuer', 'knowledge-api', 'chat']);
let browser;
try {
  await stack.restart('chat', 'SIGTERM', { CHAT_DEMO_KEY: stack.account.key, HANDOVER_WAIT: '1s' });
  await seed(stack.gateway.url, stack.account.key);
  browser = await launchBrowser();
  const page = await browser.context.newPage();
  await page.setViewportSize({ width: 1100, height: 760 });
  await page.goto(`${stack.gateway.url}/chat/demo`);
  await page.getByRole('button', { name: 'Chat', exact: true }).click();
  await page.getByRole('textbox', { name: 'Message' }).fill('How long does shipping take?');
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  await page.getByRole('log').getByRole('link', { name: 'Shipping times and costs' }).waitFor({ timeout: 20_000 });
  await page.getByRole('button', { name: 'Talk to a person' }).click();
  await page.getByRole('radio', { name: 'WhatsApp' }).check({ timeout: 20_000 });
  await page.getByRole('textbox', { name: 'WhatsApp number' }).blur();
  const file = join(root, 'docs/chat-widget-demo.png');
  await page.screenshot({ path: file });
  process.stdout.write(`written ${file}\n`);
} finally {
  await browser?.close();
  await stack.stop();
}
