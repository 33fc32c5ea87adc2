import { ExecutionContext } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RequestId } from './request-id';

/** The function Nest calls for a handler parameter decorated with `decorator`. */
function resolverOf(decorator: () => ParameterDecorator): (data: unknown, ctx: ExecutionContext) => unknown {
  class Handler {
    handle(@decorator() _value: unknown): void {}
  }
  const args: Record<string, { factory: (data: unknown, ctx: ExecutionContext) => unknown }> = Reflect.getMetadata(
    ROUTE_ARGS_METADATA,
    Handler,
    'handle',
  );
  return Object.values(args)[0].factory;
}

describe('RequestId', () => {
  it("is the id of the call's request", () => {
    const request = { id: 'req-7f3a' };
    const ctx = { switchToHttp: () => ({ getRequest: () => request }) } as unknown as ExecutionContext;
    expect(resolverOf(RequestId)(undefined, ctx)).toBe('req-7f3a');
  });
});
