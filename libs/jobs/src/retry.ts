const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 } as const;
const STEP = /^(\d{1,9})(ms|s|m|h)$/;

/**
 * `1m,5m,30m,2h,6h,12h` → the waits in milliseconds before the second, third, … attempt. The
 * delivery is attempted once more than there are steps; after that it is `failed`.
 */
export function parseRetrySchedule(text: string): number[] {
  const steps = text.split(',').map((step) => step.trim());
  return steps.map((step) => {
    const match = STEP.exec(step);
    if (!match)
      throw new Error(`must be a comma-separated list of waits such as 1m,5m,30m,2h,6h,12h (units ms, s, m, h); "${step}" is not one`);
    return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
  });
}

/** What follows a failed attempt number `attempt` (1-based): the wait before the next one, or the end. */
export function nextAfterFailure(schedule: readonly number[], attempt: number): { retryInMs: number } | 'failed' {
  const wait = schedule[attempt - 1];
  return wait === undefined ? 'failed' : { retryInMs: wait };
}

/** A delay that doubles with each attempt (1-based) from `baseMs`, at most `maxMs`. */
export function growingDelayMs(attempt: number, baseMs: number, maxMs: number): number {
  return Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1));
}
