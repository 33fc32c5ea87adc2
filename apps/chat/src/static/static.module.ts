import { Module } from '@nestjs/common';
import { DemoController } from './demo.controller';
import { DemoShop } from './demo-shop';
import { WidgetScriptController } from './widget-script.controller';

/** The widget's script (`/chat/widget.js`) and, in development, the demo shop page. */
@Module({
  controllers: [WidgetScriptController, DemoController],
  providers: [DemoShop],
})
export class StaticModule {}
