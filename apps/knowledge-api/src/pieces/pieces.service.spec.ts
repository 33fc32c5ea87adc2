import { KnowledgePieceDto } from '@svc/contracts';
import { ApiError } from '@svc/platform';
import { PieceInput, PiecesRepository, PiecesWriter } from './pieces.repository';
import { PiecesService } from './pieces.service';

const ACCOUNT = '0f8fad5b-d9cb-469f-a165-70867728950e';
const AT = '2026-11-21T10:04:05.123456+00:00';

/** An in-memory stand-in for one account's pieces, with the writer the service works through. */
function fakeRepository(held: string[], total = held.length) {
  const refs = new Set(held);
  const writer = {
    count: jest.fn(async () => total),
    existingRefs: jest.fn(async (asked: string[]) => new Set(asked.filter((r) => refs.has(r)))),
    upsert: jest.fn(async (inputs: PieceInput[]) =>
      // Written rows come back in no particular order: the service must restore the request's.
      [...inputs].reverse().map((p): KnowledgePieceDto => ({
        external_ref: p.external_ref,
        heading: p.heading,
        text: p.text,
        url: p.url,
        created_at: AT,
        updated_at: AT,
      })),
    ),
    delete: jest.fn(async (ref: string) => refs.has(ref)),
    announce: jest.fn(async () => undefined),
  };
  const repository = {
    writeForAccount: jest.fn(<T>(_account: string, work: (w: PiecesWriter) => Promise<T>) => work(writer as unknown as PiecesWriter)),
    find: jest.fn(async (_account: string, ref: string) => (refs.has(ref) ? { external_ref: ref } : undefined)),
    list: jest.fn(async (_account: string, _after: string | undefined, limit: number) =>
      [...refs]
        .sort()
        .slice(0, limit)
        .map((ref) => ({ external_ref: ref })),
    ),
  };
  const index = { refresh: jest.fn(async (): Promise<void> => undefined) };
  return { writer, repository, index, service: new PiecesService(repository as unknown as PiecesRepository, index) };
}

const body = { heading: 'Versandkosten', text: 'Der Versand ist ab 50 Euro kostenlos, darunter kostet er 4,90 Euro.' };
const expectError = async (promise: Promise<unknown>, code: string) => {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  expect((err as ApiError).code).toBe(code);
};

describe('PiecesService', () => {
  it('creates a new piece (created: true), detects its language and announces it', async () => {
    const { service, writer } = fakeRepository([]);
    const { created, piece } = await service.upsert(ACCOUNT, 'de-versand', body);
    expect(created).toBe(true);
    expect(piece.external_ref).toBe('de-versand');
    expect(writer.upsert).toHaveBeenCalledWith([{ external_ref: 'de-versand', ...body, url: null, lang: 'german' }]);
    expect(writer.announce).toHaveBeenCalledWith(['de-versand'], 'upserted');
  });

  it('replaces an existing piece (created: false) even when the account is full', async () => {
    const { service, writer } = fakeRepository(['de-versand'], 5000);
    expect((await service.upsert(ACCOUNT, 'de-versand', body)).created).toBe(false);
    expect(writer.upsert).toHaveBeenCalled();
  });

  it('refuses the 5,001st piece with limit_exceeded and writes nothing', async () => {
    const { service, writer, index } = fakeRepository([], 5000);
    await expectError(service.upsert(ACCOUNT, 'one-more', body), 'limit_exceeded');
    expect(writer.upsert).not.toHaveBeenCalled();
    expect(writer.announce).not.toHaveBeenCalled();
    expect(index.refresh).not.toHaveBeenCalled();
  });

  it('has the search index re-read what it wrote once the transaction is over, before it answers', async () => {
    const { service, repository, index } = fakeRepository(['x']);
    let committed = false;
    repository.writeForAccount.mockImplementation(async <T>(_account: string, work: (w: PiecesWriter) => Promise<T>) => {
      const result = await work(fakeRepository(['x']).writer as unknown as PiecesWriter);
      committed = true;
      return result;
    });
    index.refresh.mockImplementation(async () => expect(committed).toBe(true));
    await service.upsert(ACCOUNT, 'a', body);
    expect(index.refresh).toHaveBeenLastCalledWith(ACCOUNT, ['a']);
    await service.bulkUpsert(
      ACCOUNT,
      ['b', 'c'].map((ref) => ({ external_ref: ref, ...body })),
    );
    expect(index.refresh).toHaveBeenLastCalledWith(ACCOUNT, ['b', 'c']);
    await service.delete(ACCOUNT, 'x');
    expect(index.refresh).toHaveBeenLastCalledWith(ACCOUNT, ['x']);
    expect(index.refresh).toHaveBeenCalledTimes(3);
  });

  it('bulk: counts created and updated, keeps the request order, announces each piece', async () => {
    const { service, writer } = fakeRepository(['b']);
    const items = ['a', 'b', 'c'].map((ref) => ({ external_ref: ref, ...body }));
    const result = await service.bulkUpsert(ACCOUNT, items);
    expect(result.items.map((p) => p.external_ref)).toEqual(['a', 'b', 'c']);
    expect([result.created, result.updated]).toEqual([2, 1]);
    expect(writer.announce).toHaveBeenCalledWith(['a', 'b', 'c'], 'upserted');
  });

  it('bulk: refuses the whole batch when its new pieces do not all fit, even if some would', async () => {
    const { service, writer } = fakeRepository(['b'], 4999);
    await expectError(
      service.bulkUpsert(
        ACCOUNT,
        ['a', 'b', 'c'].map((ref) => ({ external_ref: ref, ...body })),
      ),
      'limit_exceeded',
    );
    expect(writer.upsert).not.toHaveBeenCalled();
  });

  it('bulk: a batch of pieces that all exist passes a full account', async () => {
    const { service } = fakeRepository(['a', 'b'], 5000);
    expect(
      (
        await service.bulkUpsert(
          ACCOUNT,
          ['a', 'b'].map((ref) => ({ external_ref: ref, ...body })),
        )
      ).updated,
    ).toBe(2);
  });

  it('deletes and announces, or answers not_found without announcing', async () => {
    const { service, writer } = fakeRepository(['x']);
    await service.delete(ACCOUNT, 'x');
    expect(writer.announce).toHaveBeenCalledWith(['x'], 'deleted');
    writer.announce.mockClear();
    await expectError(service.delete(ACCOUNT, 'missing'), 'not_found');
    expect(writer.announce).not.toHaveBeenCalled();
  });

  it('lists a page: next_after is the last ref returned, more tells whether another page follows', async () => {
    const { service, repository } = fakeRepository(['a', 'b', 'c']);
    expect(await service.list(ACCOUNT, { limit: 2 })).toEqual({
      items: [{ external_ref: 'a' }, { external_ref: 'b' }],
      next_after: 'b',
      more: true,
    });
    expect(repository.list).toHaveBeenCalledWith(ACCOUNT, undefined, 3);
    expect(await service.list(ACCOUNT, {})).toEqual({
      items: [{ external_ref: 'a' }, { external_ref: 'b' }, { external_ref: 'c' }],
      next_after: 'c',
      more: false,
    });
    expect(repository.list).toHaveBeenLastCalledWith(ACCOUNT, undefined, 101);
  });

  it('an empty page keeps next_after at the after sent (null on the first page)', async () => {
    expect(await fakeRepository([]).service.list(ACCOUNT, {})).toEqual({ items: [], next_after: null, more: false });
    const { service, repository } = fakeRepository([]);
    repository.list.mockResolvedValueOnce([]);
    expect(await service.list(ACCOUNT, { after: 'zzz' })).toEqual({ items: [], next_after: 'zzz', more: false });
  });

  it('looks up one piece by external_ref: a list of it, or an empty list', async () => {
    const { service } = fakeRepository(['x']);
    expect(await service.list(ACCOUNT, { external_ref: 'x' })).toEqual({ items: [{ external_ref: 'x' }] });
    expect(await service.list(ACCOUNT, { external_ref: 'y' })).toEqual({ items: [] });
  });

  it('refuses external_ref combined with after or limit as invalid_parameter', async () => {
    const { service } = fakeRepository(['x']);
    await expectError(service.list(ACCOUNT, { external_ref: 'x', limit: 5 }), 'invalid_parameter');
    await expectError(service.list(ACCOUNT, { external_ref: 'x', after: 'a' }), 'invalid_parameter');
  });
});
