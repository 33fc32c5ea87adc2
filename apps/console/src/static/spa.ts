import { Controller, Get, Param, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { ApiError } from '@svc/platform';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';

/** The front end (the console-web project, Vite), copied by the console's build to dist/apps/console/web beside dist/apps/console/src. */
export const WEB_DIR = join(__dirname, '../../web');

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
};

/** Every page of the console: scripts only from its own origin, never framed, no referrer (a set-password link's token stays here). */
const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'content-security-policy':
    "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

/** Paths of the console's API and internal routes: never answered with the page. */
const NOT_PAGES = /^\/(console\/v1|internal)(\/|$)/;

/** The front end, read once at start: index.html and the files of `assets/`. */
export class FrontEnd {
  readonly index: Buffer;
  readonly assets = new Map<string, Buffer>();

  constructor(dir = WEB_DIR) {
    this.index = existsSync(join(dir, 'index.html'))
      ? readFileSync(join(dir, 'index.html'))
      : Buffer.from(
          '<!doctype html><title>Console</title><h1>Console</h1><p>The front end is not built: run <code>npm run build</code>.</p>',
        );
    const assetDir = join(dir, 'assets');
    if (existsSync(assetDir)) for (const name of readdirSync(assetDir)) this.assets.set(name, readFileSync(join(assetDir, name)));
  }
}

/** The front end: `/assets/*` (cached for a year) and index.html for every other GET. */
@ApiExcludeController()
@Controller()
export class FrontEndController {
  constructor(private readonly frontEnd: FrontEnd) {}

  @Get('assets/:file')
  asset(@Param('file') file: string, @Res() reply: FastifyReply): FastifyReply {
    const body = this.frontEnd.assets.get(file);
    if (!body) throw new ApiError('not_found', 'There is no such file.');
    return reply
      .header('content-type', TYPES[extname(file)] ?? 'application/octet-stream')
      .header('cache-control', 'public, max-age=31536000, immutable')
      .header('x-content-type-options', 'nosniff')
      .send(body);
  }

  @Get('*')
  page(@Req() request: FastifyRequest, @Res() reply: FastifyReply): FastifyReply {
    const path = request.url.split('?')[0] ?? '/';
    if (NOT_PAGES.test(path)) throw new ApiError('not_found', `There is no route GET ${path}.`);
    return reply.headers(PAGE_HEADERS).send(this.frontEnd.index);
  }
}
