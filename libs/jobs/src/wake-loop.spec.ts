import { Periodic, WakeLoop } from './wake-loop';

/** A promise and the function that resolves it. */
function gate<T = void>(): { promise: Promise<T>; open: (value: T) => void } {
  let open!: (value: T) => void;
  const promise = new Promise<T>((resolve) => (open = resolve));
  return { promise, open };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('WakeLoop', () => {
  it('runs a pass when woken', async () => {
    const pass = jest.fn(async () => undefined);
    new WakeLoop(pass, () => undefined).wake();
    await settle();
    expect(pass).toHaveBeenCalledTimes(1);
  });

  it('turns the wake-ups that come during a pass into one more pass after it', async () => {
    const first = gate();
    const pass = jest.fn().mockReturnValueOnce(first.promise).mockResolvedValue(undefined);
    const loop = new WakeLoop(pass, () => undefined);
    loop.wake();
    loop.wake();
    loop.wake();
    expect(pass).toHaveBeenCalledTimes(1);
    first.open();
    await settle();
    expect(pass).toHaveBeenCalledTimes(2);
  });

  it('passes again at once while a pass says more may wait', async () => {
    const answers = [true, true, false];
    const pass = jest.fn(async () => answers.shift());
    new WakeLoop(pass, () => undefined).wake();
    await settle();
    expect(pass).toHaveBeenCalledTimes(3);
  });

  it('hands a failed pass to onError and starts again on the next wake-up', async () => {
    const errors: unknown[] = [];
    const pass = jest.fn().mockRejectedValueOnce(new Error('down')).mockResolvedValue(undefined);
    const loop = new WakeLoop(pass, (err) => errors.push(err));
    loop.wake();
    await settle();
    expect(errors).toEqual([new Error('down')]);
    loop.wake();
    await settle();
    expect(pass).toHaveBeenCalledTimes(2);
  });

  it('holds off passes while held, and makes the pass it was woken for when let go', async () => {
    const pass = jest.fn(async () => undefined);
    const loop = new WakeLoop(pass, () => undefined);
    const letGo = loop.hold();
    expect(letGo).toBeDefined();
    expect(loop.hold()).toBeUndefined();
    loop.wake();
    await settle();
    expect(pass).not.toHaveBeenCalled();
    letGo?.();
    letGo?.();
    await settle();
    expect(pass).toHaveBeenCalledTimes(1);
  });

  it('cannot be held while a pass runs', () => {
    const loop = new WakeLoop(
      () => gate().promise,
      () => undefined,
    );
    loop.wake();
    expect(loop.hold()).toBeUndefined();
  });

  it('starts nothing once stopped, and ends a pass in flight after its batch', async () => {
    const first = gate<boolean>();
    const pass = jest.fn().mockReturnValueOnce(first.promise).mockResolvedValue(true);
    const loop = new WakeLoop(pass, () => undefined);
    loop.wake();
    loop.stop();
    first.open(true);
    await settle();
    loop.wake();
    await settle();
    expect(pass).toHaveBeenCalledTimes(1);
  });
});

describe('Periodic', () => {
  afterEach(() => jest.useRealTimers());

  it('runs every interval, skips a tick while a run is in flight, and stop waits for that run', async () => {
    jest.useFakeTimers();
    const slow = gate();
    const task = jest.fn().mockReturnValueOnce(slow.promise).mockResolvedValue(undefined);
    const periodic = new Periodic(task, 1_000);
    periodic.start();
    jest.advanceTimersByTime(1_000);
    jest.advanceTimersByTime(1_000);
    expect(task).toHaveBeenCalledTimes(1);
    let stopped = false;
    const stopping = periodic.stop().then(() => (stopped = true));
    await Promise.resolve();
    expect(stopped).toBe(false);
    slow.open();
    await stopping;
    jest.advanceTimersByTime(5_000);
    expect(task).toHaveBeenCalledTimes(1);
  });
});
