import { applyDecorators, Catch, RpcExceptionFilter, UseFilters } from '@nestjs/common';
import { EventPattern } from '@nestjs/microservices';
import { Observable, throwError } from 'rxjs';

/** Event handlers see their own errors (the default filter would replace them with a generic object). */
@Catch()
class RethrowFilter implements RpcExceptionFilter<unknown> {
  catch(exception: unknown): Observable<never> {
    return throwError(() => exception);
  }
}

/** The extras of a handler declared with `@ConsumeEvent`: `AmqpTransport` serves no other. */
export const CONSUME_EVENT_EXTRAS: Readonly<Record<string, unknown>> = Object.freeze({ 'svc:rethrows-errors': true });

/** Whether a handler's extras say it was declared with `@ConsumeEvent`. */
export function isConsumeEventHandler(extras: Record<string, unknown> | undefined): boolean {
  return extras?.['svc:rethrows-errors'] === true;
}

/**
 * An `@EventPattern` handler served from RabbitMQ (`consumeQueues`). Its exception filter is part
 * of the handler's own metadata, so it is in place before Nest wraps the handler: the transport
 * sees each error as thrown and can tell a transient failure from a message that can never succeed.
 * (Nest's default filter would replace every error with a generic object; a hybrid app's global
 * filters are fixed when it connects the microservice.) `AmqpTransport` refuses a handler declared
 * otherwise, so the app fails at start rather than misfiling failures.
 */
export function ConsumeEvent(pattern: string | readonly string[]): MethodDecorator {
  const patterns = typeof pattern === 'string' ? pattern : [...pattern];
  return applyDecorators(EventPattern(patterns, { ...CONSUME_EVENT_EXTRAS }), UseFilters(new RethrowFilter()));
}
