import { AppDefinition } from '@svc/platform';
import { mcpServerConfigSpec } from './mcp-server.config';
import { McpServerModule } from './mcp-server.module';

export const app: AppDefinition<typeof mcpServerConfigSpec> = {
  name: 'mcp-server',
  configSpec: mcpServerConfigSpec,
  module: (config, logger) => McpServerModule.forRoot(config, logger),
};
