import { ArgumentMetadata } from '@nestjs/common';
import {
  BulkUpsertKnowledgeDto,
  ErrorDetail,
  KnowledgeRefParams,
  ListKnowledgeQueryDto,
  SearchKnowledgeDto,
  UpsertKnowledgePieceDto,
} from '@svc/contracts';
import { ApiError, ApiValidationPipe } from '@svc/platform';

/** The global pipe, exactly as the app runs it, on the knowledge DTOs. */
const pipe = new ApiValidationPipe();
const body = (metatype: ArgumentMetadata['metatype']): ArgumentMetadata => ({ type: 'body', metatype });

async function problems(value: unknown, metadata: ArgumentMetadata): Promise<{ code: string; details: ErrorDetail[] } | undefined> {
  try {
    await pipe.transform(value, metadata);
    return undefined;
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    return { code: err.code, details: err.details ?? [] };
  }
}
/** The fields named in `details`, each once (a field may break several rules). */
const paths = async (value: unknown, metadata: ArgumentMetadata) => {
  const found = await problems(value, metadata);
  return found && [...new Set(found.details.map((d) => d.path))];
};

const text = (n: number, unit = 'a') => unit.repeat(n);
const piece = (overrides: object = {}) => ({ heading: 'Shipping', text: 'We ship within two days.', ...overrides });
const item = (ref: string, overrides: object = {}) => ({ external_ref: ref, ...piece(overrides) });

describe('knowledge piece validation', () => {
  it.each([
    ['heading of 1 character', { heading: 'H' }],
    ['heading of 300 characters', { heading: text(300) }],
    ['text of 15 characters', { text: text(15) }],
    ['text of 8,000 characters', { text: text(8000) }],
    ['text of 8,000 emoji (16,000 UTF-16 units, 8,000 code points)', { text: text(8000, '😀') }],
    ['text of 15 emoji', { text: text(15, '🚚') }],
    ['text with line breaks and tabs', { text: 'Line one.\nLine two.\r\n\tIndented.' }],
    ['an https url', { url: 'https://www.example.com/help/shipping?x=1' }],
    ['an http url', { url: 'http://example.com' }],
    ['a null url', { url: null }],
  ])('accepts a %s', async (_case, overrides) => {
    expect(await problems(piece(overrides), body(UpsertKnowledgePieceDto))).toBeUndefined();
  });

  it.each([
    ['heading of 301 characters', { heading: text(301) }, 'heading'],
    ['empty heading', { heading: '' }, 'heading'],
    ['missing heading', { heading: undefined }, 'heading'],
    ['heading with a line break', { heading: 'Two\nlines' }, 'heading'],
    ['text of 14 characters', { text: text(14) }, 'text'],
    ['text of 14 emoji', { text: text(14, '😀') }, 'text'],
    ['text of 8,001 characters', { text: text(8001) }, 'text'],
    ['text of 8,001 emoji', { text: text(8001, '😀') }, 'text'],
    ['text with a NUL character', { text: 'We ship within\u0000 two days.' }, 'text'],
    ['text that is not a string', { text: 123456789012345 }, 'text'],
    ['an ftp url', { url: 'ftp://example.com/file' }, 'url'],
    ['a url without scheme', { url: 'www.example.com' }, 'url'],
    ['a url over 2,048 characters', { url: `https://example.com/${text(2040)}` }, 'url'],
  ])('refuses a %s, naming the field', async (_case, overrides, path) => {
    expect((await problems(piece(overrides), body(UpsertKnowledgePieceDto)))?.code).toBe('validation_failed');
    expect(await paths(piece(overrides), body(UpsertKnowledgePieceDto))).toEqual([path]);
  });

  it('refuses unknown fields', async () => {
    expect(await paths(piece({ lang: 'en' }), body(UpsertKnowledgePieceDto))).toEqual(['lang']);
  });

  it('checks the external_ref in the path: 1 to 255 code points, no control characters, reported as external_ref', async () => {
    const param: ArgumentMetadata = { type: 'param', metatype: KnowledgeRefParams };
    expect(await pipe.transform({ externalRef: text(255, '😀') }, param)).toEqual({ external_ref: text(255, '😀') });
    expect(await paths({ externalRef: text(256) }, param)).toEqual(['external_ref']);
    expect(await paths({ externalRef: 'a\u0007b' }, param)).toEqual(['external_ref']);
  });
});

describe('bulk validation', () => {
  const bulk = body(BulkUpsertKnowledgeDto);
  const items = (n: number) => Array.from({ length: n }, (_, i) => item(`ref-${i}`));

  it('accepts 1 and 50 items', async () => {
    expect(await problems({ items: items(1) }, bulk)).toBeUndefined();
    expect(await problems({ items: items(50) }, bulk)).toBeUndefined();
  });

  it('refuses 0 and 51 items, and a missing list', async () => {
    expect(await paths({ items: [] }, bulk)).toEqual(['items']);
    expect(await paths({ items: items(51) }, bulk)).toEqual(['items']);
    expect(await paths({}, bulk)).toEqual(['items']);
  });

  it('names every problem of every item as items[i].field', async () => {
    const sent = {
      items: [
        item('ok'),
        item('short', { text: text(14) }),
        item('', { heading: text(301) }),
        item('bad-url', { url: 'mailto:x@example.com' }),
        7,
      ],
    };
    expect(await paths(sent, bulk)).toEqual(['items[1].text', 'items[2].external_ref', 'items[2].heading', 'items[3].url', 'items[4]']);
  });

  it('refuses an external_ref repeated in the batch, at each repetition, with the other problems', async () => {
    const sent = { items: [item('a'), item('b'), item('a'), item('a', { text: 'short' })] };
    const result = await problems(sent, bulk);
    expect(result).toEqual({
      code: 'validation_failed',
      details: [
        { path: 'items[2].external_ref', message: 'external_ref repeats the one of items[0]; each piece may appear once per call' },
        { path: 'items[3].external_ref', message: 'external_ref repeats the one of items[0]; each piece may appear once per call' },
        { path: 'items[3].text', message: expect.any(String) },
      ],
    });
  });
});

describe('list query validation', () => {
  const query: ArgumentMetadata = { type: 'query', metatype: ListKnowledgeQueryDto };

  it('turns limit into a number', async () => {
    expect(await pipe.transform({ limit: '200', after: 'x' }, query)).toEqual({ limit: 200, after: 'x' });
  });

  it.each([['0'], ['201'], ['abc'], ['1.5'], ['-1']])('refuses limit=%s as invalid_parameter', async (limit) => {
    expect((await problems({ limit }, query))?.code).toBe('invalid_parameter');
    expect(await paths({ limit }, query)).toEqual(['limit']);
  });

  it('refuses unknown parameters and a too long after', async () => {
    expect(await paths({ page: '2' }, query)).toEqual(['page']);
    expect(await paths({ after: text(256) }, query)).toEqual(['after']);
  });
});

describe('search request validation', () => {
  const search = body(SearchKnowledgeDto);

  it('accepts a question with a BCP 47 language and an optional limit', async () => {
    expect(await problems({ question: 'Do you ship to Austria?', lang: 'de-AT', limit: 20 }, search)).toBeUndefined();
  });

  it('refuses an empty question, a bad language tag and a limit above 20', async () => {
    expect(await paths({ question: '', lang: 'english!', limit: 21 }, search)).toEqual(['question', 'lang', 'limit']);
  });
});
