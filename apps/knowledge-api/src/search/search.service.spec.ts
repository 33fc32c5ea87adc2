import { QuestionTerm, SearchRepository } from './search.repository';
import { rareWords, SearchService } from './search.service';

describe('rareWords', () => {
  it('takes the rarest known words while their pieces add up to the budget', () => {
    const terms = [
      { word: 'shipping', pieces: 3000 },
      { word: 'kayak', pieces: 150 },
      { word: 'lansa', pieces: 4 },
      { word: 'valencia', pieces: 400 },
    ];
    expect(rareWords(terms, 500)).toEqual(['lansa', 'kayak']);
    expect(rareWords(terms, 10_000)).toEqual(['lansa', 'kayak', 'valencia', 'shipping']);
  });

  it('leaves out words no piece holds as such (their stem may be everywhere) and returns none when all are common', () => {
    expect(
      rareWords(
        [
          { word: 'cost', pieces: 0 },
          { word: 'kayak', pieces: 10 },
        ],
        500,
      ),
    ).toEqual(['kayak']);
    expect(rareWords([{ word: 'shipping', pieces: 3000 }], 500)).toEqual([]);
  });
});

describe('SearchService', () => {
  function service(terms: QuestionTerm[]) {
    const repository = { terms: jest.fn(async () => terms), rank: jest.fn(async () => []) };
    return { repository, search: new SearchService(repository as unknown as SearchRepository) };
  }

  it('reads the terms in the visitor language, ranks with every word and picks candidates with the rare ones', async () => {
    const { repository, search } = service([
      { word: 'shiping', pieces: 0 },
      { word: 'shipping', pieces: 3000 },
      { word: 'kayak', pieces: 40 },
    ]);
    await search.answer('acc', { question: 'shiping a kayak', lang: 'de-CH', limit: 3 });
    expect(repository.terms).toHaveBeenCalledWith('acc', 'shiping a kayak', 'german');
    expect(repository.rank).toHaveBeenCalledWith('acc', ['shiping', 'shipping', 'kayak'], ['kayak'], 3);
  });

  it('answers no results without ranking when the question has no searchable word', async () => {
    const { repository, search } = service([]);
    expect(await search.answer('acc', { question: 'the of and', lang: 'en' })).toEqual({ results: [] });
    expect(repository.rank).not.toHaveBeenCalled();
  });
});
