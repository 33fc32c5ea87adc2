import { ApiError } from './errors';
import { checkJsonBody, checkPathParameters, checkQueryParameters, MAX_JSON_DEPTH, nestedTooDeep, parseJsonBody } from './request-input';

function refusal(check: () => void): ApiError {
  try {
    check();
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

/** `depth` levels of objects, built without recursion. */
function nested(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}

describe('checkJsonBody', () => {
  it('takes an ordinary body, Unicode, control characters other than NUL and all', () => {
    expect(() =>
      checkJsonBody({ name: 'Ada\t✓ 😀', consents: [{ text: 'line\nbreak', given_at: '2026-11-21T10:04:05Z' }], n: 1, b: null }),
    ).not.toThrow();
    expect(() => checkJsonBody(undefined)).not.toThrow();
    expect(() => checkJsonBody(Buffer.from('{"a":"\\u0000"}'))).not.toThrow();
  });

  it.each([
    [{ name: 'Ada\u0000' }, 'name'],
    [{ consents: [{ text: 'ok' }, { text: '\u0000' }] }, 'consents[1].text'],
    [{ items: [{ external_ref: 'a\u0000b' }] }, 'items[0].external_ref'],
    [{ 'na\u0000me': 'Ada' }, 'na\\u0000me'],
    ['\u0000', 'body'],
  ])('refuses a NUL as validation_failed naming where it is (%j)', (body, path) => {
    const err = refusal(() => checkJsonBody(body));
    expect(err.code).toBe('validation_failed');
    expect(err.details).toEqual([{ path, message: `${path} must not contain the NUL character (\\u0000)` }]);
  });

  it.each([
    [{ toString: {} }, 'toString'],
    [{ items: [{ external_ref: 'a', constructor: 1 }] }, 'items[0].constructor'],
    [JSON.parse('{"consents":[{"__proto__":{"x":1}}]}'), 'consents[0].__proto__'],
  ])('refuses a field every object inherits (class-transformer would drop it silently) as validation_failed (%j)', (body, path) => {
    const err = refusal(() => checkJsonBody(body));
    expect(err.code).toBe('validation_failed');
    expect(err.details).toEqual([{ path, message: `${path} is not a known field` }]);
  });

  it.each([
    [{ items: [{ external_ref: '\udfff' }] }, 'items[0].external_ref'],
    [{ heading: 'Flat \ud800 Berlin' }, 'heading'],
    [{ text: 'pair 😀 then half \ud83d' }, 'text'],
    [{ name: ['ok', '\udc00x'] }, 'name[1]'],
    [{ 'na\udfffme': 'Ada' }, 'na\\udfffme'],
    ['\ud800', 'body'],
  ])('refuses a lone surrogate (stored, it would become U+FFFD) as validation_failed naming where it is (%j)', (body, path) => {
    const err = refusal(() => checkJsonBody(body));
    expect(err.code).toBe('validation_failed');
    expect(err.details).toEqual([
      { path, message: `${path} must not contain a lone surrogate (\\ud800 to \\udfff without its pair): it is not a character` },
    ]);
  });

  it('takes surrogate pairs (emoji, other astral characters)', () => {
    expect(() => checkJsonBody({ heading: '😀 𝄞 𠜎', text: '\ud83d\ude00' })).not.toThrow();
  });

  it(`takes ${MAX_JSON_DEPTH} levels and refuses one more as invalid_json, objects and arrays alike`, () => {
    expect(() => checkJsonBody(nested(MAX_JSON_DEPTH))).not.toThrow();
    expect(refusal(() => checkJsonBody(nested(MAX_JSON_DEPTH + 1))).code).toBe('invalid_json');
    let array: unknown = [];
    for (let i = 1; i < MAX_JSON_DEPTH + 1; i++) array = [array];
    expect(refusal(() => checkJsonBody(array)).code).toBe('invalid_json');
  });

  it('refuses 50,000 levels at once, without recursing through them', () => {
    expect(refusal(() => checkJsonBody(nested(50_000))).code).toBe('invalid_json');
    expect(refusal(() => checkJsonBody(JSON.parse(`${'['.repeat(50_000)}${']'.repeat(50_000)}`))).code).toBe('invalid_json');
  });
});

describe('checkPathParameters and checkQueryParameters', () => {
  it('refuse a NUL in a path parameter as validation_failed, in a query value or name as invalid_parameter', () => {
    expect(refusal(() => checkPathParameters({ ref: 'a\u0000' }))).toMatchObject({ code: 'validation_failed', details: [{ path: 'ref' }] });
    expect(refusal(() => checkQueryParameters({ email: ['a@example.com', 'b\u0000'] }))).toMatchObject({
      code: 'invalid_parameter',
      details: [{ path: 'email[1]' }],
    });
    expect(refusal(() => checkQueryParameters({ 'x\u0000': '1' }))).toMatchObject({
      code: 'invalid_parameter',
      details: [{ path: 'x\\u0000' }],
    });
    expect(refusal(() => checkQueryParameters({ email: 'a@example.com', toString: '1' }))).toMatchObject({
      code: 'invalid_parameter',
      details: [{ path: 'toString' }],
    });
  });

  it('refuse a lone surrogate in a path parameter as validation_failed, in a query value or name as invalid_parameter', () => {
    expect(refusal(() => checkPathParameters({ ref: 'a\udfff' }))).toMatchObject({ code: 'validation_failed', details: [{ path: 'ref' }] });
    expect(refusal(() => checkQueryParameters({ after: '\ud800' }))).toMatchObject({
      code: 'invalid_parameter',
      details: [{ path: 'after' }],
    });
    expect(refusal(() => checkQueryParameters({ 'x\udfff': '1' }))).toMatchObject({
      code: 'invalid_parameter',
      details: [{ path: 'x\\udfff' }],
    });
  });

  it('take anything else', () => {
    expect(() => checkPathParameters({ ref: 'cust-1042 ✓' })).not.toThrow();
    expect(() => checkQueryParameters({ email: 'a@example.com', limit: '10' })).not.toThrow();
    expect(() => checkQueryParameters(undefined)).not.toThrow();
  });
});

describe('parseJsonBody', () => {
  const bytes = (text: string) => Buffer.from(text, 'utf8');

  it('reads a JSON body, and an empty one as no body', () => {
    expect(parseJsonBody(bytes('{"name":"Ada ✓","n":[1,{"a":null}]}'))).toEqual({ name: 'Ada ✓', n: [1, { a: null }] });
    expect(parseJsonBody(bytes('null'))).toBeNull();
    expect(parseJsonBody(Buffer.alloc(0))).toBeUndefined();
  });

  it('refuses text that does not parse as invalid_json', () => {
    expect(refusal(() => parseJsonBody(bytes('{"name":')))).toMatchObject({
      code: 'invalid_json',
      message: 'The request body is not valid JSON.',
    });
  });

  it('refuses nesting beyond the limit from the bytes, before parsing (the rest of the text is never read)', () => {
    const err = refusal(() => parseJsonBody(bytes(`${'['.repeat(MAX_JSON_DEPTH + 1)} not JSON at all`)));
    expect(err).toMatchObject({ code: 'invalid_json', message: `The request body is nested deeper than ${MAX_JSON_DEPTH} levels.` });
    expect(nestedTooDeep(bytes(`${'{"a":'.repeat(MAX_JSON_DEPTH)}1${'}'.repeat(MAX_JSON_DEPTH)}`))).toBe(false);
    expect(nestedTooDeep(bytes(`${'{"a":'.repeat(MAX_JSON_DEPTH + 1)}1${'}'.repeat(MAX_JSON_DEPTH + 1)}`))).toBe(true);
    expect(nestedTooDeep(bytes(`[${'[]'.repeat(10_000)}]`))).toBe(false);
  });

  it('does not count brackets inside strings, escaped quotes and backslashes included', () => {
    const inString = JSON.stringify({ a: '['.repeat(100), b: 'say \\"[[[[\\" \\\\', c: ['{'.repeat(100)] });
    expect(nestedTooDeep(bytes(inString))).toBe(false);
    expect(parseJsonBody(bytes(inString))).toEqual(JSON.parse(inString));
  });

  it('refuses bytes that are not UTF-8 as invalid_json (decoding would turn them into U+FFFD)', () => {
    // A surrogate encoded as UTF-8 (CESU-8), a lone continuation byte, a truncated sequence.
    for (const raw of [[0xed, 0xbf, 0xbf], [0x80], [0xe2, 0x82]]) {
      const body = Buffer.concat([bytes('{"heading":"'), Buffer.from(raw), bytes('"}')]);
      expect(refusal(() => parseJsonBody(body))).toMatchObject({ code: 'invalid_json', message: 'The request body is not valid UTF-8.' });
    }
  });

  it('refuses a lone surrogate escaped in the JSON text, naming the field', () => {
    expect(refusal(() => parseJsonBody(bytes('{"items":[{"external_ref":"\\udfff"}]}')))).toMatchObject({
      code: 'validation_failed',
      details: [{ path: 'items[0].external_ref' }],
    });
    expect(parseJsonBody(bytes('{"heading":"\\ud83d\\ude00"}'))).toEqual({ heading: '😀' });
  });

  it('refuses a NUL and an inherited field name as checkJsonBody does', () => {
    expect(refusal(() => parseJsonBody(bytes('{"name":"a\\u0000"}')))).toMatchObject({
      code: 'validation_failed',
      details: [{ path: 'name' }],
    });
    expect(refusal(() => parseJsonBody(bytes('{"__proto__":{"admin":true}}')))).toMatchObject({
      code: 'validation_failed',
      details: [{ path: '__proto__' }],
    });
  });
});
