import { keyOf } from './analyzer';
import { passage } from './passages';

describe('passage', () => {
  it('is the whole text when it is short', () => {
    expect(passage('Short answer. Two sentences.', new Set(['answer']), 'english')).toBe('Short answer. Two sentences.');
  });

  it('is the sentences of a long text that hold the matched words, in their order', () => {
    const filler = 'Our team is happy to help you choose the right equipment for your next trip in the mountains.';
    const text = [
      filler,
      filler,
      'Rentals must be booked two days ahead.',
      filler,
      'A deposit of 200 euros is held on your card.',
      filler,
    ].join(' ');
    const keys = new Set(['deposit', 'rental'].map((w) => keyOf(w, 'english')));
    expect(passage(text, keys, 'english')).toBe('Rentals must be booked two days ahead. … A deposit of 200 euros is held on your card.');
  });
});
