import { Controller, Get, Header } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The whole public API, assembled at build time by `npm run openapi` (see `assemble.ts`). */
const DOCUMENT = readFileSync(join(__dirname, 'openapi.json'), 'utf8');

@ApiExcludeController()
@Controller()
export class OpenApiController {
  @Get('openapi.json')
  @Header('Content-Type', 'application/json; charset=utf-8')
  @Header('Cache-Control', 'public, max-age=300')
  document(): string {
    return DOCUMENT;
  }
}
