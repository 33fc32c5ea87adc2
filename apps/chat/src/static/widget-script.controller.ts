import { Controller, Get, Header } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The widget bundle (the chat-widget project, esbuild), copied next to this file by the chat's build. */
export const WIDGET_BUNDLE_PATH = join(__dirname, 'widget.js');

/** `GET /chat/widget.js`: the standalone widget businesses embed (read once at start). */
@ApiExcludeController()
@Controller('chat')
export class WidgetScriptController {
  private readonly bundle: Buffer;

  constructor() {
    try {
      this.bundle = readFileSync(WIDGET_BUNDLE_PATH);
    } catch {
      throw new Error(`the widget bundle is missing at ${WIDGET_BUNDLE_PATH}: run \`npm run build\``);
    }
  }

  @Get('widget.js')
  @Header('content-type', 'text/javascript; charset=utf-8')
  @Header('cache-control', 'public, max-age=300')
  @Header('x-content-type-options', 'nosniff')
  script(): Buffer {
    return this.bundle;
  }
}
