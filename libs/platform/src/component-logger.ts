import { FactoryProvider, Inject } from '@nestjs/common';
import type { Logger } from 'pino';
import { APP_LOGGER } from './tokens';

/** The token of the app logger's child `{ component }`. */
export const loggerToken = (component: string): string => `logger:${component}`;

/** Injects the app logger's child `{ component }`; its module lists `componentLoggers(component)`. */
export const InjectLogger = (component: string): ParameterDecorator => Inject(loggerToken(component));

/** The providers of the app logger's children, one per component, for `@InjectLogger(component)`. */
export function componentLoggers(...components: string[]): FactoryProvider<Logger>[] {
  return components.map((component) => ({
    provide: loggerToken(component),
    inject: [APP_LOGGER],
    useFactory: (root: Logger) => root.child({ component }),
  }));
}
