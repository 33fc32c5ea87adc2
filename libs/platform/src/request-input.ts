import { ErrorDetail, INVALID_FIELDS, INVALID_JSON, INVALID_PARAMETERS } from '@svc/contracts';
import { isUtf8 } from 'node:buffer';
import { ApiError } from './errors';

/** How deeply a JSON body may nest (DTOs nest at most 4); deeper bodies would overflow the validators' stack. */
export const MAX_JSON_DEPTH = 32;

const NUL = '\u0000';
const NUL_MESSAGE = 'must not contain the NUL character (\\u0000)';
/** A UTF-16 surrogate without its pair (`"\udfff"` in JSON): no character, so no UTF-8 and no PostgreSQL text can hold it. */
const LONE_SURROGATE = /\p{Cs}/u;
const LONE_SURROGATES = /\p{Cs}/gu;
const SURROGATE_MESSAGE = 'must not contain a lone surrogate (\\ud800 to \\udfff without its pair): it is not a character';

/** `consents[0].text` from the keys walked to a value (the name a problem is reported under). */
function pathOf(base: string, keys: readonly (string | number)[]): string {
  let path = base;
  for (const key of keys) path = typeof key === 'number' ? `${path}[${key}]` : path ? `${path}.${key}` : key;
  return path;
}

/** A field named like an inherited property (`toString`, `__proto__`), which class-transformer skips silently. */
const isInheritedName = (key: string): boolean => Object.prototype.hasOwnProperty.call(Object.prototype, key);

type Problem = 'nul' | 'surrogate' | 'depth' | 'inherited';

/** What no text column can store: a NUL, or a lone surrogate (which would be stored as U+FFFD, the data changed). */
function textProblem(text: string): Problem | undefined {
  return text.includes(NUL) ? 'nul' : LONE_SURROGATE.test(text) ? 'surrogate' : undefined;
}

/** The first NUL, lone surrogate, inherited key or nesting past MAX_JSON_DEPTH in a decoded value, with its path. */
export function unstorableInput(value: unknown, base: string): { path: string; problem: Problem } | undefined {
  const keys: (string | number)[] = [];
  const walk = (node: unknown, depth: number): Problem | undefined => {
    if (typeof node === 'string') return textProblem(node);
    if (node === null || typeof node !== 'object' || ArrayBuffer.isView(node)) return undefined;
    if (depth > MAX_JSON_DEPTH) return 'depth';
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        keys.push(i);
        const found = walk(node[i], depth + 1);
        if (found) return found;
        keys.pop();
      }
      return undefined;
    }
    for (const key of Object.keys(node)) {
      keys.push(key);
      const keyProblem = textProblem(key) ?? (isInheritedName(key) ? 'inherited' : undefined);
      if (keyProblem) return keyProblem;
      const found = walk((node as Record<string, unknown>)[key], depth + 1);
      if (found) return found;
      keys.pop();
    }
    return undefined;
  };
  const problem = walk(value, 1);
  return problem ? { path: pathOf(base, keys), problem } : undefined;
}

function messageFor(problem: Problem, path: string): string {
  if (problem === 'inherited') return `${path} is not a known field`;
  return `${path} ${problem === 'surrogate' ? SURROGATE_MESSAGE : NUL_MESSAGE}`;
}

/** A problem's path as `details` shows it: a NUL or lone surrogate escaped, so the path itself is printable. */
function shownPath(path: string): string {
  return path.replaceAll(NUL, '\\u0000').replace(LONE_SURROGATES, (unit) => `\\u${unit.charCodeAt(0).toString(16)}`);
}

/** Refuses a parsed body no route can take: too deep (400 `invalid_json`) or `unstorableInput` (400 `validation_failed`). */
export function checkJsonBody(body: unknown): void {
  const found = unstorableInput(body, '');
  if (!found) return;
  if (found.problem === 'depth') {
    throw new ApiError('invalid_json', `The request body is nested deeper than ${MAX_JSON_DEPTH} levels.`);
  }
  const path = shownPath(found.path) || 'body';
  throw new ApiError('validation_failed', INVALID_FIELDS, [{ path, message: messageFor(found.problem, path) }]);
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;

/** Whether JSON bytes nest past MAX_JSON_DEPTH, scanned before parsing (1 ms where JSON.parse of 1 MiB of `[` takes ~1 s). */
export function nestedTooDeep(bytes: Uint8Array): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i];
    if (inString) {
      if (byte === BACKSLASH) i++;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) {
      inString = true;
    } else if (byte === OPEN_ARRAY || byte === OPEN_OBJECT) {
      if (++depth > MAX_JSON_DEPTH) return true;
    } else if (byte === CLOSE_ARRAY || byte === CLOSE_OBJECT) {
      depth--;
    }
  }
  return false;
}

/** Every app's JSON body reader: non-UTF-8, too deep or unparsable is 400 `invalid_json`, then `checkJsonBody`. */
export function parseJsonBody(bytes: Buffer): unknown {
  if (bytes.length === 0) return undefined;
  if (!isUtf8(bytes)) throw new ApiError('invalid_json', 'The request body is not valid UTF-8.');
  if (nestedTooDeep(bytes)) throw new ApiError('invalid_json', `The request body is nested deeper than ${MAX_JSON_DEPTH} levels.`);
  let body: unknown;
  try {
    body = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new ApiError('invalid_json', INVALID_JSON);
  }
  checkJsonBody(body);
  return body;
}

/** Path parameters and query strings: a NUL or lone surrogate in any value or name, or an inherited name, is refused like a bad field. */
function checkTextValues(values: unknown, code: 'validation_failed' | 'invalid_parameter', message: string): void {
  if (values === null || typeof values !== 'object') return;
  const details: ErrorDetail[] = [];
  for (const [name, value] of Object.entries(values as Record<string, unknown>)) {
    const nameProblem = textProblem(name) ?? (isInheritedName(name) ? 'inherited' : undefined);
    const found: { path: string; problem: Problem } | undefined = nameProblem
      ? { path: name, problem: nameProblem }
      : unstorableInput(value, name);
    if (found) details.push({ path: shownPath(found.path), message: messageFor(found.problem, shownPath(found.path)) });
  }
  if (details.length > 0) throw new ApiError(code, message, details);
}

/** The path parameters of a call (`{ref}`): a NUL or lone surrogate is 400 `validation_failed` on that parameter. */
export function checkPathParameters(params: unknown): void {
  checkTextValues(params, 'validation_failed', INVALID_FIELDS);
}

/** The query string of a call: a NUL or lone surrogate is 400 `invalid_parameter` on that parameter. */
export function checkQueryParameters(query: unknown): void {
  checkTextValues(query, 'invalid_parameter', INVALID_PARAMETERS);
}
