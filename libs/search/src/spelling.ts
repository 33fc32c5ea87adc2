/** Misspelled question words: the vocabulary of a language's pieces and the closest of its words to one it does not hold. */

/** Every distinct string made of `word` with one character left out. */
function deletions(word: string): string[] {
  const out = new Set<string>();
  for (let i = 0; i < word.length; i += 1) out.add(word.slice(0, i) + word.slice(i + 1));
  return [...out];
}

/** Edits a misspelled word of this length may be away from the word it meant (shorter words are too often other words). */
const maxEdits = (length: number) => (length >= 9 ? 2 : length >= 5 ? 1 : 0);
/** Below this length a correction keeps the last letter as well ("shoos" is "shoes", "motos" is not "motor"). */
const KEEPS_ENDS_BELOW = 6;

/** Edits from `a` to `b`: insertions, deletions, substitutions and swaps of two neighbours (optimal string alignment). */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i += 1) rows.push([i]);
  for (let j = 1; j <= b.length; j += 1) (rows[0] as number[])[j] = j;
  for (let i = 1; i <= a.length; i += 1) {
    const row = rows[i] as number[];
    const above = rows[i - 1] as number[];
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min((above[j] as number) + 1, (row[j - 1] as number) + 1, (above[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, ((rows[i - 2] as number[])[j - 2] as number) + 1);
      row[j] = best;
    }
  }
  return (rows[a.length] as number[])[b.length] as number;
}

/** The distinct words (folded) of one language's pieces: what corrects misspelled question words (symmetric delete). */
export class Vocabulary {
  /** Folded word → the vocabulary's own copy of it, its key and how many pieces hold it. */
  private readonly words = new Map<string, { surface: string; key: string; docs: number }>();
  /**
   * A word with one letter left out → the vocabulary's word it comes from, or its words when several do
   * (symmetric delete). Most come from one word: a string, not a collection, per entry.
   */
  private readonly deletes = new Map<string, string | string[]>();

  /** A folded word's key and how many pieces hold it, if any does. */
  get(surface: string): { key: string; docs: number } | undefined {
    return this.words.get(surface);
  }

  /** One more piece holds the word; returns the vocabulary's copy of it, which a piece keeps instead of its own. */
  add(surface: string, key: string): string {
    const known = this.words.get(surface);
    if (known) {
      known.docs += 1;
      return known.surface;
    }
    this.words.set(surface, { surface, key, docs: 1 });
    for (const deleted of deletions(surface)) {
      const from = this.deletes.get(deleted);
      if (from === undefined) this.deletes.set(deleted, surface);
      else if (typeof from === 'string') this.deletes.set(deleted, [from, surface]);
      else from.push(surface);
    }
    return surface;
  }

  /** One piece fewer holds the word. */
  remove(surface: string): void {
    const known = this.words.get(surface);
    if (!known) return;
    known.docs -= 1;
    if (known.docs > 0) return;
    this.words.delete(surface);
    for (const deleted of deletions(surface)) {
      const from = this.deletes.get(deleted);
      if (from === surface) this.deletes.delete(deleted);
      else if (Array.isArray(from)) {
        const rest = from.filter((word) => word !== surface);
        if (rest.length > 1) this.deletes.set(deleted, rest);
        else if (rest.length === 1) this.deletes.set(deleted, rest[0] as string);
        else this.deletes.delete(deleted);
      }
    }
  }

  /** The closest vocabulary word to a misspelled one (fewest edits, then the most pieces), if any is close enough. */
  correction(word: string): string | undefined {
    const edits = maxEdits(word.length);
    if (edits === 0) return undefined;
    const candidates = new Set<string>();
    for (const variant of [word, ...deletions(word)]) {
      if (this.words.has(variant)) candidates.add(variant);
      const from = this.deletes.get(variant);
      if (typeof from === 'string') candidates.add(from);
      else for (const surface of from ?? []) candidates.add(surface);
    }
    let best: { word: string; edits: number; docs: number } | undefined;
    for (const candidate of candidates) {
      // A misspelling rarely starts with another letter ("maison" is not "saison").
      if (candidate[0] !== word[0]) continue;
      if (word.length < KEEPS_ENDS_BELOW && candidate.at(-1) !== word.at(-1)) continue;
      const away = editDistance(word, candidate);
      const docs = this.words.get(candidate)?.docs ?? 0;
      if (away > edits) continue;
      if (!best || away < best.edits || (away === best.edits && docs > best.docs)) best = { word: candidate, edits: away, docs };
    }
    return best?.word;
  }
}
