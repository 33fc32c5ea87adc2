import { AppDefinition } from '@svc/platform';
import { consoleConfigSpec } from './console.config';
import { ConsoleModule } from './console.module';

export const app: AppDefinition<typeof consoleConfigSpec> = {
  name: 'console',
  configSpec: consoleConfigSpec,
  // The client address sign-in failures are counted by: the gateway (or the Ingress) in front.
  serverOptions: () => ({ trustProxy: 1 }),
  module: (config, logger) => ConsoleModule.forRoot(config, logger),
};
