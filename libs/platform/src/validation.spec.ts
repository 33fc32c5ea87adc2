import { Type } from 'class-transformer';
import { IsEmail, IsString, Length, ValidateNested } from 'class-validator';
import { ApiError } from './errors';
import { ApiValidationPipe } from './validation';

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
    await expect(pipe.transform({ email: 'a@example.com', items: [] }, { type: 'body', metatype: BodyDto })).resolves.toBeInstanceOf(BodyDto);
  });

  it.each([null, 12, 'Ada', true, [{ email: 'a@example.com' }]])('refuses a body of %j where the DTO is an object (Nest would make null an empty object)', async (value) => {
    const err = await failure(value, 'body');
    expect(err.code).toBe('validation_failed');
    expect(err.details).toEqual([{ path: 'body', message: 'body must be a JSON object' }]);
  });

  it('leaves a missing body (undefined) to the DTO, as before', async () => {
    const err = await failure(undefined, 'body');
    expect(err.details?.map((d) => d.path)).toEqual(expect.arrayContaining(['email']));
  });
});
