import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { IsInt, IsOptional, validateSync } from 'class-validator';
import { UpdateWebhookDto } from './webhooks.dto';
import { CodePoints, NoControlCharacters, PlainText, QueryInteger } from './validators';

class Sample {
  @IsOptional()
  @CodePoints(1, 3)
  @NoControlCharacters()
  ref?: string;

  @IsOptional()
  @PlainText()
  text?: string;

  @IsOptional()
  @QueryInteger(3)
  @IsInt()
  limit?: number;
}

const problems = (plain: object) => validateSync(plainToInstance(Sample, plain)).flatMap((error) => Object.values(error.constraints ?? {}));

describe('the shared validators', () => {
  it('CodePoints counts code points, not UTF-16 units: three emoji are three characters', () => {
    expect(problems({ ref: '😀😀😀' })).toEqual([]);
    expect(problems({ ref: '😀😀😀😀' })).toEqual(['ref must be 1 to 3 characters']);
    expect(problems({ ref: '' })).toEqual(['ref must be 1 to 3 characters']);
  });

  it('NoControlCharacters refuses any control character; PlainText allows only tab and line breaks', () => {
    expect(problems({ ref: 'a\tb' })).toEqual(['ref must not contain control characters']);
    expect(problems({ text: 'line\r\nnext\tcolumn' })).toEqual([]);
    expect(problems({ text: 'nul\u0000' })).toEqual(['text must not contain control characters other than tab and line breaks']);
  });

  it('QueryInteger turns up to `digits` decimal digits into a number and leaves anything else for IsInt to refuse', () => {
    expect(plainToInstance(Sample, { limit: '120' }).limit).toBe(120);
    expect(problems({ limit: '120' })).toEqual([]);
    for (const bad of ['1000', '-1', '1.5', '0x10', ' 1']) expect(problems({ limit: bad })).toEqual(['limit must be an integer number']);
  });

  it('IfSent lets a field be left out but not sent as null (PATCH /webhooks/{id}: url and status)', () => {
    const webhook = (plain: object) =>
      validateSync(plainToInstance(UpdateWebhookDto, plain)).map((error) => [error.property, Object.keys(error.constraints ?? {})]);
    expect(webhook({})).toEqual([]);
    expect(webhook({ events: null })).toEqual([]);
    expect(webhook({ url: null })).toEqual([['url', expect.arrayContaining(['isString'])]]);
    expect(webhook({ status: null })).toEqual([['status', ['isIn']]]);
  });
});
