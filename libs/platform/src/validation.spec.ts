import { Type } from 'class-transformer';
import { IsEmail, IsString, Length, ValidateNested } from 'class-validator';
import { ApiError } from './errors';
import { ApiValidationPipe, suggestField } from './validation';
import { EventsQueryDto, UpsertContactDto } from '@svc/contracts';

class ItemDto {
  @IsString()
  @Length(15, 20)
  text!: string;
}

class BodyDto {
  @IsEmail()
  email!: string;

  @ValidateNested({ each: true })
  @Type(() => ItemDto)
  items!: ItemDto[];
}

describe('ApiValidationPipe', () => {
  const pipe = new ApiValidationPipe();

  async function failure(value: unknown, type: 'body' | 'query'): Promise<ApiError> {
    try {
      await pipe.transform(value, { type, metatype: BodyDto });
    } catch (err) {
      return err as ApiError;
    }
    throw new Error('expected a validation failure');
  }

  it('names every bad field of a body, with array paths, as validation_failed', async () => {
    const err = await failure({ email: 'nope', items: [{ text: 'long enough text' }, { text: 'short' }], extra: 1 }, 'body');
    expect(err.code).toBe('validation_failed');
    const paths = err.details?.map((d) => d.path).sort();
    expect(paths).toEqual(['email', 'extra', 'items[1].text']);
  });

  it('reports a bad query string as invalid_parameter', async () => {
    const err = await failure({ email: 'nope', items: [] }, 'query');
    expect(err.code).toBe('invalid_parameter');
    expect(err.details?.[0]?.path).toBe('email');
  });

  it('accepts a valid body', async () => {
    await expect(pipe.transform({ email: 'a@example.com', items: [] }, { type: 'body', metatype: BodyDto })).resolves.toBeInstanceOf(
      BodyDto,
    );
  });

  it.each([null, 12, 'Ada', true, [{ email: 'a@example.com' }]])(
    'refuses a body of %j where the DTO is an object (Nest would make null an empty object)',
    async (value) => {
      const err = await failure(value, 'body');
      expect(err.code).toBe('validation_failed');
      expect(err.details).toEqual([{ path: 'body', message: 'body must be a JSON object' }]);
    },
  );

  it.each(['prototype', 'constructor', 'toString', 'valueOf', 'hasOwnProperty'])(
    'refuses a field named %s, at the top or nested (Nest and class-transformer would drop it unseen)',
    async (name) => {
      const top = JSON.parse(`{"email": "a@example.com", "items": [], "${name}": []}`) as unknown;
      expect((await failure(top, 'body')).details).toEqual([{ path: name, message: `${name} is not a known field` }]);
      const nested = JSON.parse(`{"email": "a@example.com", "items": [{"text": "long enough text", "${name}": 1}]}`) as unknown;
      expect((await failure(nested, 'body')).details).toEqual([
        { path: `items[0].${name}`, message: `items[0].${name} is not a known field` },
      ]);
      const query = JSON.parse(`{"email": "a@example.com", "${name}": "1"}`) as unknown;
      expect((await failure(query, 'query')).code).toBe('invalid_parameter');
    },
  );

  it('leaves a missing body (undefined) to the DTO, as before', async () => {
    const err = await failure(undefined, 'body');
    expect(err.details?.map((d) => d.path)).toEqual(expect.arrayContaining(['email']));
  });

  describe('messages that say what to fix, one entry per bad field', () => {
    async function details(value: unknown, metatype: new () => object, type: 'body' | 'query' = 'body') {
      try {
        await pipe.transform(value, { type, metatype });
      } catch (err) {
        return (err as ApiError).details;
      }
      throw new Error('expected a validation failure');
    }

    it('says "is required" for a missing field, and nothing about its length or kind', async () => {
      const consent = { purpose: 'future_email', text: 'Yes, email me.', source: 'website_form' };
      expect(await details({ consents: [consent] }, UpsertContactDto)).toEqual([
        { path: 'consents[0].given_at', message: 'given_at is required' },
      ]);
    });

    it('reports every bad field at once, one entry each', async () => {
      const consent = { purpose: 'newsletter', text: 'Yes, email me.', source: 'website_form' };
      const found = await details({ email: 'not-an-address', name: 42, consents: [consent] }, UpsertContactDto);
      expect(found?.map((d) => d.path).sort()).toEqual(['consents[0].given_at', 'consents[0].purpose', 'email', 'name']);
      expect(new Set(found?.map((d) => d.path)).size).toBe(found?.length);
    });

    it('names the expected kind of value, not every rule a wrong kind breaks', async () => {
      const found = await details({ consents: [{ purpose: 'future_email', text: 'Yes', source: 'form', given_at: 12 }] }, UpsertContactDto);
      expect(found).toEqual([{ path: 'consents[0].given_at', message: 'given_at must be a string' }]);
    });

    it.each(['-1', 'abc', '1.5'])('answers after=%s with the range it must be in', async (after) => {
      expect(await details({ after }, EventsQueryDto, 'query')).toEqual([
        { path: 'after', message: 'after must be a whole number of 0 or more' },
      ]);
    });

    it('suggests the closest known field for an unknown one, and nothing when none is close', async () => {
      expect(await details({ emial: 'ada@example.com', zzzzzz: 1 }, UpsertContactDto)).toEqual([
        { path: 'emial', message: 'emial is not a known field; did you mean email?' },
        { path: 'zzzzzz', message: 'zzzzzz is not a known field' },
      ]);
      const nested = await details(
        { consents: [{ purpose: 'future_email', text: 'Yes', source: 'form', given_at: '2026-11-21T10:04:05Z', grantd: true }] },
        UpsertContactDto,
      );
      expect(nested).toEqual([{ path: 'consents[0].grantd', message: 'grantd is not a known field; did you mean granted?' }]);
    });

    it.each([
      ['Email', ['email', 'name'], 'email'],
      ['phone_confirmd', ['phone', 'phone_confirmed', 'email_confirmed'], 'phone_confirmed'],
      ['url', ['events', 'status'], undefined],
      ['x', ['y'], undefined],
    ])('suggestField(%s) among %j is %s', (unknown, known, expected) => {
      expect(suggestField(unknown, known)).toBe(expected);
    });
  });
});
