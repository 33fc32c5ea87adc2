import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Test support: the verification code and test vectors the webhook receiver guide
 * (docs/webhooks.md) publishes, so that tests run them exactly as written.
 */

function guide(): string {
  return readFileSync(join(__dirname, '../../../docs/webhooks.md'), 'utf8');
}

/** The code blocks of one language, in order. */
export function guideCode(lang: string): string[] {
  return [...guide().matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1] ?? '');
}

/** The `name: value` lines of each ```text block (the test vectors), in order. */
export function guideVectors(): Array<Record<string, string>> {
  return guideCode('text').map((block) => Object.fromEntries([...block.matchAll(/^([\w -]+?):\s+(.*)$/gm)].map((m) => [m[1], m[2]])));
}

export interface PythonCase {
  secrets: string | string[];
  headers: Record<string, unknown>;
  body: Buffer;
  /** Unix seconds; the receiver's clock when omitted. */
  now?: number;
}

/**
 * Runs the guide's Python verifier (python3, one process for all the cases) on each request:
 * true where it accepts it.
 */
export function verifyWithPython(cases: readonly PythonCase[]): boolean[] {
  const [code] = guideCode('python');
  if (!code) throw new Error('docs/webhooks.md has no python block');
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
