import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseSettings, withDevelopmentSettings } from './dev-settings';

describe('withDevelopmentSettings', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dev-settings-'));
  const file = join(dir, 'dev-settings.env');
  writeFileSync(file, '# written by npm start\nADMIN_INTERNAL_KEY=from-npm-start-0123456789abcdef0123\n\nCHAT_URL=http://127.0.0.1:3106\n');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('fills in what the caller did not set from the file npm start wrote', () => {
    const env = withDevelopmentSettings({ CHAT_URL: 'http://chat.example' }, file);
    expect(env['ADMIN_INTERNAL_KEY']).toBe('from-npm-start-0123456789abcdef0123');
    expect(env['CHAT_URL']).toBe('http://chat.example');
  });

  it('reads nothing in production, and goes on without the file', () => {
    expect(withDevelopmentSettings({ NODE_ENV: 'production' }, file)).toEqual({ NODE_ENV: 'production' });
    expect(withDevelopmentSettings({ A: '1' }, join(dir, 'missing.env'))).toEqual({ A: '1' });
  });

  it('parses NAME=value lines only', () => {
    expect(parseSettings('A=1\n# B=2\n lower=3\nC=x=y\n')).toEqual({ A: '1', C: 'x=y' });
  });
});
