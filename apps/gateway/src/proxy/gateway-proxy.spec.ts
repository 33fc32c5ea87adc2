import { isConsolePath } from './gateway-proxy';

describe("the gateway proxy: the console's paths", () => {
  it('sends the console every path the gateway does not keep', () => {
    for (const path of [
      '/',
      '/inbox',
      '/inbox/42',
      '/sign-in?next=%2Finbox',
      '/assets/index-abc.js',
      '/console/v1/session',
      '/apis',
      '/chats',
      '/mcpx',
    ]) {
      expect(isConsolePath(path)).toBe(true);
    }
  });

  it('keeps the API, the chat, MCP, internal routes and probes', () => {
    for (const path of [
      '/%61pi/v1/contact%73/a',
      '/ch%61t/widget.js',
      '/%6Dcp',
      '/inbox/../api/v1/whoami',
      '/a//b',
      '/api',
      '/api/v1/whoami',
      '/api/v1/nope',
      '/chat/widget.js',
      '/chat/v1/sessions',
      '/mcp',
      '/mcp?x',
      '/internal/widgets/w',
      '/healthz',
      '/readyz',
      '/metrics',
    ]) {
      expect(isConsolePath(path)).toBe(false);
    }
  });
});
