import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '@svc/testing';
import { ROUTES } from '../proxy/route-table';
import document from './openapi.json';

// Runs after `npm run build` (the test command builds first): the tool reads the compiled apps.
function openapiTool(...args: string[]) {
  return spawnSync(process.execPath, [join(REPO_ROOT, 'tools/openapi.mjs'), ...args], { cwd: REPO_ROOT, encoding: 'utf8' });
}

describe('the OpenAPI document', () => {
  it('is what the code generates, and valid OpenAPI 3.1 (@seriousme/openapi-schema-validator)', () => {
    const result = openapiTool('--check');
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });

  it('the validator it relies on refuses a broken document', () => {
    const file = join(tmpdir(), `openapi-broken-${process.pid}.json`);
    writeFileSync(file, JSON.stringify({ ...document, paths: { '/x': { get: { responses: { '200': { description: 1 } } } } } }));
    expect(openapiTool('--validate', file).status).toBe(1);
  });

  it('describes every operation with the error responses the gateway gives', () => {
    for (const [path, item] of Object.entries(document.paths as Record<string, Record<string, { responses: Record<string, unknown> }>>)) {
      for (const [method, operation] of Object.entries(item)) {
        expect({ path, method, has401: '401' in operation.responses, has402: '402' in operation.responses }).toEqual({ path, method, has401: true, has402: true });
      }
    }
  });

  it('only lists routes the gateway serves or proxies', () => {
    const routed = new Set([...ROUTES.map((r) => `${r.method} ${r.path}`), 'GET /whoami']);
    for (const [path, item] of Object.entries(document.paths)) {
      for (const method of Object.keys(item)) expect(routed).toContain(`${method.toUpperCase()} ${path.replace(/\{([^}]+)\}/g, ':$1')}`);
    }
  });
});
