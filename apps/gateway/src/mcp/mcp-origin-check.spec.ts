import { McpOriginCheck } from './mcp-origin-check';

const check = new McpOriginCheck({
  APP_URL: 'https://app.example.com',
  MCP_ALLOWED_HOSTS: 'api.example.com, ',
  MCP_ALLOWED_ORIGINS: 'https://agent.example/',
});
const refusal = (headers: Record<string, string>) => {
  try {
    check.check(headers);
    return undefined;
  } catch (err) {
    return (err as { code?: string }).code;
  }
};

describe('McpOriginCheck (DNS rebinding)', () => {
  it.each(['app.example.com', 'APP.example.com:443', 'api.example.com:8443', 'localhost:3000', '127.0.0.1', '[::1]:3000'])(
    'answers Host %s',
    (host) => {
      expect(refusal({ host })).toBeUndefined();
    },
  );

  it.each(['attacker.example', 'app.example.com.attacker.example', '', 'bad host'])('refuses Host %p with 403 forbidden_origin', (host) => {
    expect(refusal({ host })).toBe('forbidden_origin');
  });

  it('accepts no Origin (agents), the application origin and the configured ones; refuses any other page', () => {
    expect(refusal({ host: 'localhost' })).toBeUndefined();
    expect(refusal({ host: 'localhost', origin: 'https://app.example.com' })).toBeUndefined();
    expect(refusal({ host: 'localhost', origin: 'https://agent.example' })).toBeUndefined();
    expect(refusal({ host: 'localhost', origin: 'http://app.example.com' })).toBe('forbidden_origin');
    expect(refusal({ host: 'localhost', origin: 'https://evil.example' })).toBe('forbidden_origin');
    expect(refusal({ host: 'localhost', origin: 'null' })).toBe('forbidden_origin');
  });
});
