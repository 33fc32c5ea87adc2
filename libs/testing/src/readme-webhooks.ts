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

export interface PythonCase {
  secrets: string | string[];
  headers: Record<string, unknown>;
  body: Buffer;
  /** Unix seconds; the receiver's clock when omitted. */
  now?: number;
}

/**
 * Runs the README's Python verifier (python3, one process for all the cases) on each request:
 * true where it accepts it.
 */
export function verifyWithPython(cases: readonly PythonCase[]): boolean[] {
  const [code] = readmeCode('python');
  if (!code) throw new Error('the README has no python block under "Receiving webhooks"');
  const harness = `${code}
import base64, json, sys
cases = json.load(sys.stdin)
print(json.dumps([verify_svc_webhook(c["secrets"], c["headers"], base64.b64decode(c["body"]), c["now"]) for c in cases]))
`;
  const input = JSON.stringify(
    cases.map((c) => ({
      secrets: c.secrets,
      headers: Object.fromEntries(Object.entries(c.headers).filter((e): e is [string, string] => typeof e[1] === 'string')),
      body: c.body.toString('base64'),
      now: c.now ?? null,
    })),
  );
  return JSON.parse(execFileSync('python3', ['-c', harness], { input, encoding: 'utf8' })) as boolean[];
}
