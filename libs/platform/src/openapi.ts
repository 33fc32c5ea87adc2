import { DynamicModule } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { ErrorResponseDto } from '@svc/contracts';
import { Config, ConfigSpec, DEV_DEFAULTS_FLAG, loadConfig } from './config';
import { createLogger } from './logger';
import { AppDefinition } from './bootstrap';

/** An app's OpenAPI document from its controllers and DTOs, built in Nest's preview mode (no database needed). */
export async function describeApi<S extends ConfigSpec>(definition: AppDefinition<S>): Promise<OpenAPIObject> {
  // Nothing runs and nothing is signed: the development defaults of secrets are harmless here.
  const config: Config<S> = loadConfig(definition.configSpec, { NODE_ENV: 'development', [DEV_DEFAULTS_FLAG]: 'true' });
  const module: DynamicModule = definition.module(config, createLogger(definition.name, 'silent'));
  const app = await NestFactory.create(module, new FastifyAdapter(), { preview: true, logger: false, abortOnError: false });
  if (definition.globalPrefix) app.setGlobalPrefix(definition.globalPrefix);
  const document = SwaggerModule.createDocument(app, new DocumentBuilder().setTitle(definition.name).setOpenAPIVersion('3.1.0').build(), {
    ignoreGlobalPrefix: true,
    extraModels: [ErrorResponseDto],
    operationIdFactory: (_controller, method) => method,
  });
  await app.close();
  return document;
}
