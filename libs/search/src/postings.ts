import { fold, isNumber, keyOf, words } from './analyzer';
import { conceptsOf } from './concepts';
import { SearchLanguage } from './language';
import { isStopWord, synonymsOf } from './lexicon';
import { Sentence, sentencesOf } from './passages';
import { Vocabulary } from './spelling';
import { Tuning } from './tuning';

/** A piece as the index holds it (the row of `knowledge.pieces` it was read from). */
export interface IndexedPiece {
  id: string;
  external_ref: string;
  heading: string;
  text: string;
  url: string | null;
  lang: SearchLanguage;
  /** When it was last written (`updated_at`): a re-read of the same version is not indexed again. */
  version?: string;
  /** Customers' questions the team taught it answers: they count as heading words do (`taughtWeight`). */
  questions?: readonly string[];
  /** A question the team taught no piece answers: when it is the best match, nothing is. */
  none?: boolean;
}

export interface Posting {
  key: string;
  /** The slots of the pieces holding the key, and its weighted frequency in each. */
  slots: number[];
  tf: number[];
  /**
   * How many of those pieces hold it in their own heading or text, not only in a question taught for them: what
   * decides how much the key says in a question. A taught question makes its piece found, never another word rarer.
   */
  df: number;
}

export interface Doc {
  piece: IndexedPiece;
  /** Its place in its language's `slots`, where a search adds up its score. */
  slot: number;
  /** Weighted length: heading words count `headingWeight` times. */
  length: number;
  /** Its keys' postings: first the `own` held by its heading and text, then those only its taught questions hold. */
  postings: Posting[];
  own: number;
  /** The distinct words (folded) of the piece: the vocabulary that corrects misspelled question words. */
  surfaces: string[];
  /** The keys of its heading: what it is about. */
  subject: Set<string>;
  /** Its text's sentences with their words' keys, made at its first passage. */
  sentences?: Sentence[];
}

const reverse = (text: string) => [...text].reverse().join('');

/** The first place in sorted `list` whose string is not below `value`. */
function lowerBound(list: readonly string[], value: string): number {
  let [low, high] = [0, list.length];
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((list[middle] as string) < value) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** The pieces of one language of an account: postings with term frequencies, and the vocabulary. */
export class LanguageIndex {
  readonly postings = new Map<string, Posting>();
  /** The distinct words of the pieces, which correct misspelled question words. */
  readonly vocabulary = new Vocabulary();
  /** The pieces by slot (a removed piece leaves a free slot). */
  readonly slots: Array<Doc | undefined> = [];
  private readonly free: number[] = [];
  /** What a search adds up per slot, kept between searches (each search resets what it touched). */
  score = new Float64Array(0);
  /** BM25's length normalisation of each slot's piece (`k1 · (1 − b + b · length / average)`), for `normsAverage`. */
  norms = new Float64Array(0);
  normsAverage = Number.NaN;
  matched = new Float64Array(0);
  termScore = new Float64Array(0);
  termFactor = new Float64Array(0);
  count = 0;
  totalLength = 0;

  constructor(
    readonly language: SearchLanguage,
    readonly tuning: Tuning,
  ) {}

  /** The held keys sorted, and each reversed and sorted: the keys a compound part begins or ends. Rebuilt after a change. */
  private sorted?: { forward: string[]; backward: string[] };

  /** The sums of a search, as long as the slots. */
  sums(): void {
    if (this.score.length >= this.slots.length) return;
    const size = Math.max(64, this.slots.length * 2);
    this.score = new Float64Array(size);
    this.matched = new Float64Array(size);
    this.termScore = new Float64Array(size);
    this.termFactor = new Float64Array(size);
    this.norms = new Float64Array(size);
    this.normsAverage = Number.NaN;
  }

  /** The slots' length normalisations, recomputed when a write changed the average length. */
  normalised(k1: number, b: number): Float64Array {
    const average = this.totalLength / this.count;
    if (this.normsAverage !== average) {
      for (const [slot, doc] of this.slots.entries()) if (doc) this.norms[slot] = k1 * (1 - b + (b * doc.length) / average);
      this.normsAverage = average;
    }
    return this.norms;
  }

  add(piece: IndexedPiece): Doc {
    const tf = new Map<string, number>();
    /** The piece's distinct words, as the vocabulary holds them (one copy of a word for all the pieces). */
    const surfaces: string[] = [];
    const seen = new Set<string>();
    const said: string[] = [];
    let length = 0;
    const count = (text: string, weight: number) => {
      for (const word of words(text)) {
        const folded = fold(word);
        said.push(folded);
        if (isStopWord(folded)) continue;
        const key = keyOf(word, this.language);
        tf.set(key, (tf.get(key) ?? 0) + weight);
        length += weight;
        if (folded.length >= 3 && !isNumber(folded) && !seen.has(folded)) {
          seen.add(folded);
          surfaces.push(this.vocabulary.add(folded, key));
        }
      }
    };
    count(piece.heading, this.tuning.headingWeight);
    const subject = new Set(tf.keys());
    count(piece.text, 1);
    for (const [concept, times] of conceptsOf(`${piece.heading}\n${piece.text}`, said)) tf.set(concept, times);
    // A "no piece answers this" is a taught question too: its words are no piece's.
    const own = piece.none ? 0 : tf.size;
    for (const question of piece.questions ?? []) count(question, this.tuning.taughtWeight);
    const slot = this.free.pop() ?? this.slots.length;
    // The piece's own keys come first in `tf` (a Map keeps the order keys were added in): the first `own` postings.
    const postings = [...tf].map(([key, frequency], i) => {
      let posting = this.postings.get(key);
      if (!posting) {
        this.postings.set(key, (posting = { key, slots: [], tf: [], df: 0 }));
        this.sorted = undefined;
      }
      posting.slots.push(slot);
      posting.tf.push(frequency);
      if (i < own) posting.df += 1;
      return posting;
    });
    const doc: Doc = { piece, slot, length, postings, own, surfaces: surfaces.slice(), subject };
    this.slots[slot] = doc;
    this.count += 1;
    this.totalLength += length;
    return doc;
  }

  remove(doc: Doc): void {
    for (const [i, posting] of doc.postings.entries()) {
      if (i < doc.own) posting.df -= 1;
      const at = posting.slots.indexOf(doc.slot);
      const last = posting.slots.length - 1;
      posting.slots[at] = posting.slots[last] as number;
      posting.tf[at] = posting.tf[last] as number;
      posting.slots.pop();
      posting.tf.pop();
      if (posting.slots.length === 0) {
        this.postings.delete(posting.key);
        this.sorted = undefined;
      }
    }
    for (const surface of doc.surfaces) this.vocabulary.remove(surface);
    this.slots[doc.slot] = undefined;
    this.free.push(doc.slot);
    this.count -= 1;
    this.totalLength -= doc.length;
  }

  /** A piece's sentences, holding only keys of these postings (the postings' own strings: a cited piece keeps no copies). */
  sentencesOf(text: string): Sentence[] {
    return sentencesOf(text, this.language, (key) => this.postings.get(key)?.key);
  }

  /** BM25's inverse document frequency of a key held by `df` of this language's pieces. */
  idf(df: number): number {
    return Math.log(1 + (this.count - df + 0.5) / (df + 0.5));
  }

  /** The keys of a known word: as written, folded, or the stem of either. */
  knownKeys(word: string): string[] {
    const folded = fold(word);
    const keys = new Set<string>();
    const surface = this.vocabulary.get(folded);
    if (surface) keys.add(surface.key);
    for (const key of [keyOf(word, this.language), keyOf(folded, this.language)]) if (this.postings.has(key)) keys.add(key);
    return [...keys];
  }

  /** Whether the pieces hold a word or one of its synonyms. */
  resolves(word: string): boolean {
    if (this.knownKeys(word).length > 0) return true;
    for (const synonym of synonymsOf(keyOf(word, this.language), this.language)) if (this.postings.has(synonym)) return true;
    return false;
  }

  /** The postings of the held keys that begin with `prefix` and are at least `longer` letters longer. */
  beginning(prefix: string, longer: number): Posting[] {
    return this.around(this.sortedKeys().forward, prefix, longer, (held) => held);
  }

  /** The postings of the held keys that end with `suffix` and are at least `longer` letters longer. */
  ending(suffix: string, longer: number): Posting[] {
    return this.around(this.sortedKeys().backward, reverse(suffix), longer, reverse);
  }

  private around(sorted: readonly string[], prefix: string, longer: number, toKey: (held: string) => string): Posting[] {
    const found: Posting[] = [];
    for (let at = lowerBound(sorted, prefix); at < sorted.length && (sorted[at] as string).startsWith(prefix); at += 1) {
      const held = sorted[at] as string;
      if (held.length - prefix.length < longer) continue;
      const posting = this.postings.get(toKey(held));
      if (posting) found.push(posting);
    }
    return found;
  }

  private sortedKeys(): { forward: string[]; backward: string[] } {
    if (!this.sorted) {
      const keys = [...this.postings.keys()].filter((key) => !key.startsWith('#'));
      this.sorted = { forward: keys.sort(), backward: keys.map(reverse).sort() };
    }
    return this.sorted;
  }
}
