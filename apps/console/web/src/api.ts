import type { ErrorBody } from '@svc/contracts';

/** A refusal of the console's backend, in the contract's error shape. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: { path: string; message: string }[] = [],
  ) {
    super(message);
  }
}

let csrfToken = '';
export const setCsrfToken = (token: string): void => {
  csrfToken = token;
};

/** Where a refused session sends the member (set by the app shell). */
let onSignedOut: () => void = () => undefined;
export const whenSignedOut = (handler: () => void): void => {
  onSignedOut = handler;
};

/** The console backend's one client (`/console/v1/…`): JSON, the session cookie, the CSRF token on writes. */
export async function api<T>(method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (method !== 'GET') headers['x-csrf-token'] = csrfToken;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`/console/v1${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: 'same-origin',
  });
  const text = await response.text();
  const json: unknown = text ? JSON.parse(text) : undefined;
  if (!response.ok) {
    const error = (json as Partial<ErrorBody> | undefined)?.error;
    if (response.status === 401 && !path.startsWith('/sign-in') && !path.startsWith('/set-password')) onSignedOut();
    throw new ApiFailure(
      response.status,
      error?.code ?? 'unavailable',
      error?.message ?? `The console answered ${response.status}.`,
      error?.details,
    );
  }
  return json as T;
}

/** `?a=1&b=` from an object, leaving out empty values. */
export function query(params: Record<string, string | number | boolean | undefined | null>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params))
    if (value !== undefined && value !== null && value !== '') search.set(key, String(value));
  const text = search.toString();
  return text ? `?${text}` : '';
}

/** A message for the page: the backend's own words, each field problem on its own line. */
export function describe(error: unknown): string {
  if (error instanceof ApiFailure) return [error.message, ...error.details.map((d) => `${d.path}: ${d.message}`)].join('\n');
  return 'The console could not be reached; check the connection and retry.';
}
