import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, sendError } from '@svc/platform';
import type { FastifyInstance } from 'fastify';
import { GatewayConfig } from '../gateway.config';
import { canonicalPath } from './canonical-path';
import { PassThroughUpstream } from './pass-through';

/** Paths the gateway keeps (the API, the chat, MCP, its own internal routes and probes); every other path is the console's. */
const NOT_CONSOLE = /^\/(api|chat|mcp|internal|healthz|readyz|metrics)(\/|\?|$)/;
const CONSOLE_UNAVAILABLE = 'The console is temporarily unavailable; retry shortly.';
const BODYLESS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** What the console needs from a team member's browser: its session cookie, CSRF token, the body's type and the page's origin. */
const FORWARDED_REQUEST_HEADERS = [
  'cookie',
  'content-type',
  'content-length',
  'accept',
  'accept-language',
  'user-agent',
  'origin',
  'referer',
  'x-csrf-token',
  'last-event-id',
] as const;

/**
 * Whether a request's URL is the console's, judged on the canonical path the gateway's routes see
 * (`/%61pi/v1/…` is the API's). A path with no single meaning stays with the gateway, which refuses it.
 */
export function isConsolePath(url: string): boolean {
  const query = url.indexOf('?');
  const canonical = canonicalPath(query === -1 ? url : url.slice(0, query));
  return !('refused' in canonical) && !NOT_CONSOLE.test(canonical.path);
}

/**
 * The team's web console at `{app_url}/` (contract "One public origin"): every path the gateway
 * does not keep goes to the console app unchanged, without the API's key checks (the console checks
 * its own sessions). Forwarded from an onRequest hook, so that no gateway route (and no 404/405 of
 * the API) is shadowed by a catch-all; bodies stream through as they come.
 */
@Injectable()
export class ConsoleProxy extends PassThroughUpstream {
  constructor(@Inject(APP_CONFIG) config: GatewayConfig) {
    // The inbox's live stream holds a connection while a member keeps the page open (see PassThroughUpstream).
    super('console', config.CONSOLE_URL, config.UPSTREAM_TIMEOUT_MS, FORWARDED_REQUEST_HEADERS, CONSOLE_UNAVAILABLE);
  }

  install(fastify: FastifyInstance): void {
    // A callback hook, not an async one: the API's calls pass it on every request, without a promise or a microtask.
    fastify.addHook('onRequest', (request, reply, done) => {
      if (!isConsolePath(request.url)) return done();
      // Answered here, and `done` is never called: no gateway route runs. The console throttles
      // failed sign-ins by the X-Forwarded-For address; bodies stream through as they come.
      const body = BODYLESS.has(request.method) ? undefined : request.raw;
      this.forward(request, reply, body).catch((err: unknown) => sendError(request, reply, err));
    });
  }
}
