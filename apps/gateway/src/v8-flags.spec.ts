import { readFileSync } from 'node:fs';
import { join } from 'node:path';

jest.mock('node:v8', () => ({ setFlagsFromString: jest.fn() }));

describe("the gateway's V8 flags", () => {
  it('turn allocation-site pretenuring off', async () => {
    const v8 = await import('node:v8');
    await import('./v8-flags');
    expect(v8.setFlagsFromString).toHaveBeenCalledWith('--no-allocation-site-pretenuring');
  });

  it('are set by the first import of main.ts, before the app allocates anything', () => {
    const main = readFileSync(join(__dirname, 'main.ts'), 'utf8');
    expect(main.split('\n').find((line) => line.startsWith('import'))).toBe("import './v8-flags';");
  });
});
