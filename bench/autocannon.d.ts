// The part of autocannon's API the benchmarks use (autocannon ships no types of its own). With
// `@types/autocannon` among the devDependencies this file could go.
declare module 'autocannon' {
  /** One request autocannon sends; `setupRequest` makes each from the last, `onResponse` sees each answer. */
  export interface Request {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    setupRequest?: (request: Request, context: Record<string, unknown>) => Request;
    onResponse?: (status: number, body: string, context: Record<string, unknown>, headers: Record<string, string>) => void;
  }

  export interface Options {
    url: string;
    connections?: number;
    duration?: number;
    headers?: Record<string, string>;
    requests?: Request[];
  }

  /** Counts per second (average) and in all (total). */
  export interface Histogram {
    average: number;
    total: number;
  }

  export interface Result {
    requests: Histogram;
    /** Milliseconds. */
    latency: { p50: number; p99: number };
    errors: number;
    timeouts: number;
    non2xx: number;
  }

  /** Runs the load and resolves with its figures (without a callback, autocannon returns a promise). */
  export default function autocannon(options: Options): Promise<Result>;
}
