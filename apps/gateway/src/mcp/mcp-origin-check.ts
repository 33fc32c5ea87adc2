import { ApiError } from '@svc/platform';
import type { IncomingHttpHeaders } from 'node:http';

/** The MCP endpoint, at the root of the public origin (not under the API prefix). */
export const MCP_PATH = '/mcp';

/** Host names a local agent uses for a server on this machine (the SDK's localhost list). */
const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]'];

export interface McpOriginSettings {
  APP_URL: string;
  MCP_ALLOWED_HOSTS: string;
  MCP_ALLOWED_ORIGINS: string;
}

function list(setting: string): string[] {
  return setting
    .split(',')
    .map((entry) => entry.trim().toLowerCase())
    .filter(Boolean);
}

/** The host name of a Host header (`example.com:3000` → `example.com`, `[::1]:3000` → `[::1]`), or undefined when it does not parse. */
function hostnameOf(host: string): string | undefined {
  try {
    return new URL(`http://${host}`).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

/**
 * DNS rebinding defence for `/mcp` (as the MCP specification asks of Streamable HTTP servers): the
 * Host header must name this service (APP_URL's host, a loopback name, or MCP_ALLOWED_HOSTS; any
 * port), and a browser's Origin, when sent, must be APP_URL's origin or one of MCP_ALLOWED_ORIGINS.
 * A page on another site that got its name resolved to this server fails one of the two.
 */
export class McpOriginCheck {
  private readonly hosts: Set<string>;
  private readonly origins: Set<string>;

  constructor(settings: McpOriginSettings) {
    const app = new URL(settings.APP_URL);
    this.hosts = new Set([app.hostname.toLowerCase(), ...LOOPBACK_HOSTS, ...list(settings.MCP_ALLOWED_HOSTS)]);
    this.origins = new Set([app.origin.toLowerCase(), ...list(settings.MCP_ALLOWED_ORIGINS).map((origin) => origin.replace(/\/+$/, ''))]);
  }

  /** Throws 403 `forbidden_origin` for a request this server must not answer. */
  check(headers: IncomingHttpHeaders): void {
    const hostname = hostnameOf(headers.host ?? '');
    if (!hostname || !this.hosts.has(hostname)) {
      throw new ApiError('forbidden_origin', 'The MCP server does not answer for this Host; use the address of the application (APP_URL).');
    }
    const origin = headers.origin;
    if (origin !== undefined && !this.origins.has(origin.toLowerCase())) {
      throw new ApiError('forbidden_origin', 'The MCP server does not accept calls from pages of this origin.');
    }
  }
}
