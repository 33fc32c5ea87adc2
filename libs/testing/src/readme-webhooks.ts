import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Test support: the verification code and test vectors the project's
 * README publishes under "Receiving webhooks", so that tests run them exactly as written.
 */

function section(): string {
  const readme = readFileSync(join(__dirname, '../../../README.md'), 'utf8');
  return readme.split('## Receiving webhooks')[1]?.split('\n## ')[0] ?? '';
}

/** The code blocks of one language, in order. */
export function readmeCode(lang: string): string[] {
  return [...section().matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1] ?? '');
}

/** The `name: value` lines of each ```text block (the test vectors), in order. */
export function readmeVectors(): Array<Record<string, string>> {
  return readmeCode('text').map((block) => Object.fromEntries([...block.matchAll(/^([\w -]+?):\s+(.*)$/gm)].map((m) => [m[1], m[2]])));
}

/**
 * Runs the README's Python verifier (python3) on one request: true when it accepts it. `now` in
 * Unix seconds; the receiver's clock when omitted.
 */
export function verifyWithPython(secrets: string | string[], headers: Record<string, unknown>, body: Buffer, now?: number): boolean {
  const [code] = readmeCode('python');
  if (!code) throw new Error('the README has no python block under "Receiving webhooks"');
  const textHeaders = Object.fromEntries(Object.entries(headers).filter((e): e is [string, string] => typeof e[1] === 'string'));
  const harness = `${code}
import base64, json, sys
args = json.load(sys.stdin)
print(json.dumps(verify_svc_webhook(args["secrets"], args["headers"], base64.b64decode(args["body"]), args["now"])))
`;
  const input = JSON.stringify({ secrets, headers: textHeaders, body: body.toString('base64'), now: now ?? null });
  return JSON.parse(execFileSync('python3', ['-c', harness], { input, encoding: 'utf8' })) as boolean;
}
