import { words } from './analyzer';
import { editDistance } from './spelling';

describe('words and editDistance', () => {
  it('keeps a one-letter part with the next, splits apostrophes', () => {
    expect(words("E-Bike-Service, l'atelier, Online-Kalender")).toEqual(['ebike', 'service', 'l', 'atelier', 'online', 'kalender']);
  });

  it('counts a swap of two neighbours as one edit', () => {
    expect(editDistance('satruday', 'saturday')).toBe(1);
    expect(editDistance('waranty', 'warranty')).toBe(1);
    expect(editDistance('maison', 'saison')).toBe(1);
    expect(editDistance('abc', 'xyz')).toBe(3);
  });
});
