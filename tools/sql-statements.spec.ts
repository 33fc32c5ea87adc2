// The statements' parameters are typed from the schema (ADR 017): tools/sql-statements.mjs reads each
// keyed statement's text from the sources as the running code builds it, and a project's runners
// refuse parameters of the wrong types.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';

const root = join(__dirname, '..');

/** What `readStatements(files)` gives, read in a child process (the module is ESM). */
function readStatements(files?: string[]): { status: number | null; stdout: string; stderr: string } {
  const script = `import { readStatements } from ${JSON.stringify(join(root, 'tools/sql-statements.mjs'))};
    process.stdout.write(JSON.stringify(readStatements(${files ? JSON.stringify(files) : ''})));`;
  return spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: root, encoding: 'utf8' });
}

describe('tools/sql-statements.mjs', () => {
  let scratch: string;
  beforeAll(() => {
    scratch = mkdtempSync(join(tmpdir(), 'sql-statements-'));
  });
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  const fixture = (name: string, text: string): string => {
    const path = join(scratch, name);
    writeFileSync(path, `declare function sql(key: string): (strings: TemplateStringsArray, ...parts: unknown[]) => unknown;\n${text}`);
    return path;
  };

  it('works out a text from the constants and pure helpers it names', () => {
    const path = fixture(
      'helpers.ts',
      `const columns = (alias?: string) => ['id', 'name'].map((c) => (alias ? \`\${alias}.\${c}\` : c)).join(', ');
       const LOOKUPS = { ref: 'c.ref = $2', email: 'lower(c.email) = lower($2)' } as const;
       const byLookup = (by: keyof typeof LOOKUPS, lock: boolean) => {
         const where = LOOKUPS[by];
         return \`SELECT \${columns('c')} FROM t c WHERE \${where}\${lock ? ' FOR UPDATE' : ''}\`;
       };
       const LIMIT = 7_900;
       export const A = sql('a')\`\${byLookup('email', true)} LIMIT \${LIMIT}\`;`,
    );
    const read = readStatements([path]);
    expect(read.stderr).toBe('');
    expect(JSON.parse(read.stdout).keyed).toEqual([
      expect.objectContaining({ key: 'a', text: 'SELECT c.id, c.name FROM t c WHERE lower(c.email) = lower($2) FOR UPDATE LIMIT 7900' }),
    ]);
  });

  it('refuses a keyed text that depends on a value only the running code has, and reports a constant statement without a key', () => {
    const runtime = fixture('runtime.ts', `export function f(table: string) { return sql('b')\`SELECT * FROM \${table}\`; }`);
    const failed = readStatements([runtime]);
    expect(failed.status).not.toBe(0);
    expect(failed.stderr).toContain('the text of b is not known before it runs');

    const unkeyed = fixture(
      'unkeyed.ts',
      `declare function queryRows(db: unknown, statement: unknown, params?: unknown[]): unknown;
       export const run = (db: unknown, table: string) => [queryRows(db, 'SELECT 1'), queryRows(db, \`SELECT * FROM \${table}\`)];`,
    );
    const read = JSON.parse(readStatements([unkeyed]).stdout);
    expect(read.unkeyed).toEqual([expect.objectContaining({ line: 3, text: '"SELECT 1"' })]);
  });

  it("reads the project's statements as the built code runs them", () => {
    const read = readStatements();
    expect(read.stderr).toBe('');
    const { keyed, unkeyed } = JSON.parse(read.stdout) as { keyed: Array<{ key: string; text: string }>; unkeyed: unknown[] };
    expect(unkeyed).toEqual([]);
    const text = (key: string) => keyed.find((statement) => statement.key === key)?.text;
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const built = require(join(root, 'dist/apps/contacts-api/src/customers.sql.js'));
    expect(text('contacts_consents_of')).toBe(built.CONSENTS_OF_SQL.text);
    expect(text('contacts_customer_by_ref_locked')).toBe(built.customerSql('ref', true));
    expect(text('contacts_with_consents_by_email')).toBe(built.withConsentsSql('email'));
  }, 60_000);
});

describe("a project's runners", () => {
  /** The type errors of each line of `lines`, compiled as one file of apps/chat/src beside its statements.ts. */
  function typeErrors(lines: string[]): string[][] {
    const config = ts.readConfigFile(join(root, 'tsconfig.base.json'), ts.sys.readFile).config;
    const { options } = ts.parseJsonConfigFileContent(config, ts.sys, root);
    const path = join(root, 'apps/chat/src/params-check.ts');
    const preamble = [
      `import type { DataSource } from 'typeorm';`,
      `import { queryRows, sql } from './statements';`,
      'declare const db: DataSource;',
    ];
    const text = [...preamble, ...lines].join('\n');
    const host = ts.createCompilerHost(options);
    const getSourceFile = host.getSourceFile.bind(host);
    host.getSourceFile = (file, language, ...rest) =>
      file === path ? ts.createSourceFile(file, text, language) : getSourceFile(file, language, ...rest);
    const fileExists = host.fileExists.bind(host);
    host.fileExists = (file) => file === path || fileExists(file);
    const program = ts.createProgram([path], { ...options, noEmit: true }, host);
    const errors: string[][] = lines.map(() => []);
    for (const d of ts.getPreEmitDiagnostics(program)) {
      if (d.file?.fileName !== path || d.start === undefined) continue;
      const line = d.file.getLineAndCharacterOfPosition(d.start).line - preamble.length;
      errors[line]?.push(`TS${d.code}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`);
    }
    return errors;
  }

  const LIST = `sql('chat_bookings_list')\`SELECT b.id FROM chat.bookings b WHERE b.account_id = $1 AND ($2::text IS NULL OR b.status = $2) AND b.id > $3 LIMIT $4\``;

  it('take the parameters the schema gives the key, and refuse others', () => {
    const [right, wrongType, missing, unknownKey] = typeErrors([
      `export const right = queryRows<{ id: number }>(db, ${LIST}, ['account', null, 0, 10]);`,
      `export const wrongType = queryRows<{ id: number }>(db, ${LIST}, ['account', null, true, 10]);`,
      `export const missing = queryRows<{ id: number }>(db, ${LIST}, ['account']);`,
      "export const unknownKey = sql('chat_no_such_statement')`SELECT 1`;",
    ]);
    expect(right).toEqual([]);
    expect(wrongType).toEqual([expect.stringMatching(/^TS2345:/)]);
    expect(missing).toEqual([expect.stringMatching(/^TS2345:/)]);
    expect(unknownKey).toEqual([expect.stringContaining(`'"chat_no_such_statement"' is not assignable`)]);
  }, 60_000);
});
