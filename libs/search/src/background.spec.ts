import { informativeness } from './background';

describe('informativeness: what a word says in its language, from its frequency rank', () => {
  it('is 0 among the most frequent words, 1 outside the list, and grows with the rank between', () => {
    expect(informativeness('the', 'english', 300)).toBe(0);
    expect(informativeness('spaniel', 'english', 300)).toBe(1);
    const along = informativeness('along', 'english', 300);
    const pizza = informativeness('pizza', 'english', 300);
    expect(along).toBeGreaterThan(0);
    expect(pizza).toBeGreaterThan(along);
    expect(pizza).toBeLessThan(1);
  });

  it('reads each language its own list, accents folded, an unlisted inflection by its stem', () => {
    expect(informativeness('und', 'german', 300)).toBe(0);
    expect(informativeness('und', 'english', 300)).toBeGreaterThan(0.5);
    expect(informativeness('Étudiant', 'french', 300)).toBe(informativeness('etudiant', 'french', 300));
    expect(informativeness('bicicletas', 'spanish', 300)).toBe(informativeness('bicicleta', 'spanish', 300));
    expect(informativeness('bicicleta', 'spanish', 300)).toBeLessThan(1);
  });

  it('is 1 in a language without a list: every unknown word counts in full', () => {
    expect(informativeness('the', 'simple', 300)).toBe(1);
  });
});
