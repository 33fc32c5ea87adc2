import { FactoryProvider, InjectionToken, OnApplicationShutdown } from '@nestjs/common';

/** What holds connections of its own (a keep-alive pool to another service) and lets them go. */
export interface Closable {
  close(): Promise<void>;
}

/** Closes the instances of `tokens` (a null one: none configured) when the app stops, after the listener has drained. */
export function closedOnShutdown(...tokens: InjectionToken[]): FactoryProvider<OnApplicationShutdown> {
  return {
    provide: Symbol('closed on shutdown'),
    inject: tokens,
    useFactory: (...instances: Array<Closable | null>) => ({
      onApplicationShutdown: async () => {
        await Promise.all(instances.map((instance) => instance?.close()));
      },
    }),
  };
}
