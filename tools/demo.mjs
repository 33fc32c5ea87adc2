// The demo of `npm start` (development only): `node tools/demo.mjs key` makes sure a "Lindenhof
// Coffee (demo)" account exists and prints a fresh API key of it (the chat serves /chat/demo with
// it, as CHAT_DEMO_KEY); `seed(url, key)` (called by tools/run-all.mjs once the gateway is ready)
// writes its sample customer and knowledge pieces through the public API. The account id is kept
// in .local/demo.json (git-ignored); keys are created anew each start, like a business would.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const STATE = join(root, '.local/demo.json');

/**
 * The admin CLI's answer to `args`: `account create` and `key create` both print the new API key,
 * `account create` the account too.
 * @param {...string} args
 * @returns {{ api_key: string, account?: { id: string } }}
 */
const admin = (...args) =>
  JSON.parse(
    execFileSync(process.execPath, [join(root, 'dist/apps/admin/src/main.js'), ...args], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );

/** The demo account's API key: a new key of the saved account, or of a new account. */
export function demoKey() {
  /** @type {{ account?: string } | undefined} */
  let saved;
  try {
    saved = JSON.parse(readFileSync(STATE, 'utf8'));
  } catch {
    saved = undefined;
  }
  if (saved?.account) {
    try {
      return admin('key', 'create', '--account', saved.account).api_key;
    } catch {
      // the account is gone (a fresh database): create it again
    }
  }
  const created = /** @type {{ api_key: string, account: { id: string } }} */ (
    admin('account', 'create', '--name', 'Lindenhof Coffee (demo)', '--plan', 'scale')
  );
  mkdirSync(dirname(STATE), { recursive: true });
  writeFileSync(STATE, `${JSON.stringify({ account: created.account.id }, null, 2)}\n`);
  return created.api_key;
}

export const DEMO_PIECES = [
  [
    'shipping',
    'Shipping times and costs',
    'Orders placed before 2 pm ship the same working day. Delivery in Germany takes one to three working days and costs 4.90 euros; shipping is free from 40 euros.',
    'https://lindenhof.example/help/shipping',
  ],
  [
    'returns',
    'Returns and refunds',
    'You can return unopened coffee within 30 days of delivery for a full refund. Print the free return label from your account page.',
    'https://lindenhof.example/help/returns',
  ],
  [
    'roasting',
    'When we roast',
    'We roast every Tuesday and ship within days, so your beans are never older than a week when they arrive.',
    'https://lindenhof.example/help/roasting',
  ],
  [
    'grind',
    'Ground coffee',
    'Every coffee is available as whole beans or ground for espresso, filter or French press; choose the grind on the product page.',
    'https://lindenhof.example/help/grind',
  ],
  [
    'subscription',
    'Coffee subscription',
    'The subscription delivers a bag every two or four weeks at 10 percent off. Pause or cancel it any time from your account.',
    'https://lindenhof.example/help/subscription',
  ],
  [
    'versand',
    'Versand und Lieferzeit',
    'Bestellungen bis 14 Uhr verschicken wir am selben Werktag. Die Lieferung innerhalb Deutschlands dauert ein bis drei Werktage.',
    'https://lindenhof.example/de/hilfe/versand',
  ],
];

/**
 * @param {string} url the gateway's origin
 * @param {string} key an API key of the demo account
 */
export async function seed(url, key) {
  // The gateway answers before every service behind it does: a few tries, a second apart.
  /**
   * @param {string} path
   * @param {object} body
   * @param {number} [tries]
   * @returns {Promise<void>}
   */
  const put = async (path, body, tries = 30) => {
    const response = await fetch(`${url}/api/v1${path}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (response.status >= 500 && tries > 1) {
      await new Promise((done) => setTimeout(done, 1_000));
      return put(path, body, tries - 1);
    }
    if (!response.ok) throw new Error(`demo: PUT ${path} → ${response.status} ${await response.text()}`);
  };
  await put('/contacts/demo-ada', { name: 'Ada Lovelace', email: 'ada@lindenhof.example', email_confirmed: true, phone: '+4915112345678' });
  for (const [ref, heading, text, pieceUrl] of DEMO_PIECES) await put(`/knowledge/${ref}`, { heading, text, url: pieceUrl });
}

if (process.argv[2] === 'key') process.stdout.write(`${demoKey()}\n`);
