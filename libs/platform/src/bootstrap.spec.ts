import { installProcessHandlers } from './bootstrap';

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
