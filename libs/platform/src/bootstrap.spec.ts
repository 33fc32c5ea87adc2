import { installProcessHandlers, isInternalOnly } from './bootstrap';

describe('installProcessHandlers', () => {
  it('logs an unhandled rejection of a background task and keeps the process running', () => {
    const logger = { error: jest.fn(), fatal: jest.fn() };
    const exit = jest.fn();
    const remove = installProcessHandlers(logger, exit);
    try {
      process.emit('unhandledRejection', new Error('Channel closed'), Promise.resolve());
    } finally {
      remove();
    }
    expect(logger.error).toHaveBeenCalledWith({ err: 'Error: Channel closed' }, expect.stringContaining('unhandled promise rejection'));
    expect(exit).not.toHaveBeenCalled();
  });

  it('logs an uncaught exception and ends the process', () => {
    const logger = { error: jest.fn(), fatal: jest.fn() };
    const exit = jest.fn();
    const remove = installProcessHandlers(logger, exit);
    try {
      process.emit('uncaughtException', new TypeError('boom'));
    } finally {
      remove();
    }
    expect(logger.fatal).toHaveBeenCalledWith(
      expect.objectContaining({ err: 'TypeError: boom' }),
      expect.stringContaining('uncaught exception'),
    );
    expect(exit).toHaveBeenCalledWith(1);
  });
});

describe('isInternalOnly', () => {
  it('knows internal routes by the route matched and by every spelling of the path', () => {
    expect(isInternalOnly('/internal/console/keys', '/internal/console/keys')).toBe(true);
    expect(isInternalOnly('/metrics', '/metrics')).toBe(true);
    // The gateway's catch-all proxy matches any path: the path itself decides.
    for (const path of [
      '/internal/console/keys',
      '/%69nternal/console/keys',
      '//internal//x',
      '/INTERNAL/x',
      '/internal',
      '/metrics?x=1',
      '/internal%2Fchat',
    ])
      expect([path, isInternalOnly('/*', path)]).toEqual([path, true]);
    for (const path of ['/api/v1/contacts', '/chat/v1/sessions', '/internals', '/inbox/internal/x', '/%zz'])
      expect([path, isInternalOnly('/*', path)]).toEqual([path, false]);
  });
});
