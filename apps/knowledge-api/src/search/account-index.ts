import { KnowledgeSearchResult } from '@svc/contracts';
import { fold, GENERIC_WORDS, isStopWord, keyOf, LIGHT_WORDS, synonymsOf, words } from './analyzer';
import { Concept, conceptsAsked, conceptsOf } from './concepts';
import { SearchLanguage } from './language';

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
}

/** The settings of the ranking and of the trust in a match; `TUNING` holds the calibrated ones. */
export interface Tuning {
  /** A heading word counts this many times a text word. */
  headingWeight: number;
  /** BM25's term frequency saturation and length normalisation. */
  k1: number;
  b: number;
  /** Share of the question's weight the best piece must match to be trusted. */
  minCoverage: number;
  /** An unknown word (no piece holds it, nothing close) weighs this many times a word one piece holds. */
  unknownWeight: number;
  /** The same for an unknown name (a capitalised word inside a sentence, `a new Brompton`; not in German, which capitalises every noun). */
  unknownNameWeight: number;
  /** The same for an unknown number (an order number, a size) or generic word ("order", "item"). */
  unknownNumberWeight: number;
  /** What a misspelled word matched through its correction, and a word through its synonym, count for. */
  correctedFactor: number;
  synonymFactor: number;
  /** What a question word asking for a concept ("when": a time) weighs, against a word as rare. */
  conceptWeight: number;
  /** The best piece is not trusted when another of its language matches as much of the question and scores this share of it. */
  tieRatio: number;
}

/** Calibrated on bench/answers (see bench/README.md). */
export const TUNING: Tuning = {
  headingWeight: 3,
  k1: 1.2,
  b: 0.75,
  minCoverage: 0.5,
  unknownWeight: 1.05,
  unknownNameWeight: 1.35,
  unknownNumberWeight: 0.35,
  correctedFactor: 0.85,
  synonymFactor: 0.8,
  conceptWeight: 0.5,
  tieRatio: 0.85,
};

/** Shares of the question matched that count as the same. */
const TIE = 0.005;
/** Share of their heading keys (passages' words) two pieces hold in common from which they are one subject (answer alike). */
const SAME_SUBJECT = 0.5;

/** Jaccard overlap of two sets. */
function overlap(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  let common = 0;
  for (const key of a) if (b.has(key)) common += 1;
  const union = a.size + b.size - common;
  return union === 0 ? 1 : common / union;
}

/** Words of a piece a matching passage holds at most; a shorter text is its own passage. */
const PASSAGE_WORDS = 50;

interface Posting {
  key: string;
  /** The slots of the pieces holding the key, and its weighted frequency in each. */
  slots: number[];
  tf: number[];
}

interface Doc {
  piece: IndexedPiece;
  /** Its place in its language's `slots`, where a search adds up its score. */
  slot: number;
  /** Weighted length: heading words count `headingWeight` times. */
  length: number;
  postings: Posting[];
  /** The distinct words (folded) of the piece: the vocabulary that corrects misspelled question words. */
  surfaces: string[];
  /** The keys of its heading: what it is about. */
  subject: Set<string>;
  /** Its text's sentences with their words' keys, made at its first passage. */
  sentences?: Sentence[];
}

interface Sentence {
  text: string;
  keys: string[];
  length: number;
}

interface Alternative {
  posting: Posting;
  factor: number;
}

/** A question word in one language: the keys it may match, and what it weighs in the question. */
interface QueryTerm {
  alternatives: Alternative[];
  weight: number;
}

/** A number, or a measure written as one word ("85m", "30kg"). */
const isNumber = (word: string) => /^\p{N}+\p{L}{0,3}$/u.test(word);

/** Every string made of `word` with one character left out. */
function deletions(word: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < word.length; i += 1) out.push(word.slice(0, i) + word.slice(i + 1));
  return out;
}

/** Edits a misspelled word of this length may be away from the word it meant (shorter words are too often other words). */
const maxEdits = (length: number) => (length >= 9 ? 2 : length >= 5 ? 1 : 0);
/** Below this length a correction keeps the last letter as well ("shoos" is "shoes", "motos" is not "motor"). */
const KEEPS_ENDS_BELOW = 6;

/** The shortest word part a short form or a compound is matched by. */
const MIN_PART = 4;
/** Letters a short form leaves out at least (`bici|cleta`; `moto` is not short for `motor`). */
const SHORTENED = 2;

/** The shortest rest of a compound beside a part the question holds (`werkstatt|termin`). */
const MIN_REST = 3;
/** Compounds a question word or synonym matches at most. */
const COMPOUNDS = 5;

const reverse = (text: string) => [...text].reverse().join('');

/** The keys of the `most` postings held by the most pieces, each once. */
function mostHeld(postings: Posting[], most: number): string[] {
  return [...new Set(postings)]
    .sort((a, b) => b.slots.length - a.slots.length)
    .slice(0, most)
    .map((posting) => posting.key);
}

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

/** Languages that write compounds as one word, which the search splits when a question's compound is unknown. */
const COMPOUNDING = new Set<SearchLanguage>(['german', 'dutch']);

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

/** The pieces of one language of an account: postings with term frequencies, and the vocabulary. */
class LanguageIndex {
  readonly postings = new Map<string, Posting>();
  /** Folded word → its key and how many pieces hold it. */
  readonly vocabulary = new Map<string, { key: string; docs: number }>();
  /** A word with one letter left out → the vocabulary's words it comes from (symmetric delete). */
  readonly deletes = new Map<string, Set<string>>();
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
    private readonly tuning: Tuning,
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
    const surfaces = new Set<string>();
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
        if (folded.length >= 3 && !isNumber(folded) && !surfaces.has(folded)) {
          surfaces.add(folded);
          this.addSurface(folded, key);
        }
      }
    };
    count(piece.heading, this.tuning.headingWeight);
    const subject = new Set(tf.keys());
    count(piece.text, 1);
    for (const [concept, times] of conceptsOf(`${piece.heading}\n${piece.text}`, said)) tf.set(concept, times);
    const slot = this.free.pop() ?? this.slots.length;
    const doc: Doc = { piece, slot, length, postings: [], surfaces: [...surfaces], subject };
    this.slots[slot] = doc;
    for (const [key, frequency] of tf) {
      let posting = this.postings.get(key);
      if (!posting) {
        this.postings.set(key, (posting = { key, slots: [], tf: [] }));
        this.sorted = undefined;
      }
      posting.slots.push(slot);
      posting.tf.push(frequency);
      doc.postings.push(posting);
    }
    this.count += 1;
    this.totalLength += length;
    return doc;
  }

  remove(doc: Doc): void {
    for (const posting of doc.postings) {
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
    for (const surface of doc.surfaces) this.removeSurface(surface);
    this.slots[doc.slot] = undefined;
    this.free.push(doc.slot);
    this.count -= 1;
    this.totalLength -= doc.length;
  }

  private addSurface(surface: string, key: string): void {
    const known = this.vocabulary.get(surface);
    if (known) {
      known.docs += 1;
      return;
    }
    this.vocabulary.set(surface, { key, docs: 1 });
    for (const deleted of deletions(surface)) {
      const from = this.deletes.get(deleted);
      if (from) from.add(surface);
      else this.deletes.set(deleted, new Set([surface]));
    }
  }

  private removeSurface(surface: string): void {
    const known = this.vocabulary.get(surface);
    if (!known) return;
    known.docs -= 1;
    if (known.docs > 0) return;
    this.vocabulary.delete(surface);
    for (const deleted of deletions(surface)) {
      const from = this.deletes.get(deleted);
      from?.delete(surface);
      if (from?.size === 0) this.deletes.delete(deleted);
    }
  }

  /** A piece's sentences, holding only keys of these postings (the postings' own strings: a cited piece keeps no copies). */
  sentencesOf(text: string): Sentence[] {
    return sentencesOf(text, this.language, (key) => this.postings.get(key)?.key);
  }

  /** BM25's inverse document frequency of a key held by `df` of this language's pieces. */
  idf(df: number): number {
    return Math.log(1 + (this.count - df + 0.5) / (df + 0.5));
  }

  /** The closest vocabulary word to a misspelled one (fewest edits, then the most pieces), if any is close enough. */
  private correction(word: string): string | undefined {
    const edits = maxEdits(word.length);
    if (edits === 0) return undefined;
    const candidates = new Set<string>();
    for (const variant of [word, ...deletions(word)]) {
      if (this.vocabulary.has(variant)) candidates.add(variant);
      for (const surface of this.deletes.get(variant) ?? []) candidates.add(surface);
    }
    let best: { word: string; edits: number; docs: number } | undefined;
    for (const candidate of candidates) {
      // A misspelling rarely starts with another letter ("maison" is not "saison").
      if (candidate[0] !== word[0]) continue;
      if (word.length < KEEPS_ENDS_BELOW && candidate.at(-1) !== word.at(-1)) continue;
      const away = editDistance(word, candidate);
      const docs = this.vocabulary.get(candidate)?.docs ?? 0;
      if (away > edits) continue;
      if (!best || away < best.edits || (away === best.edits && docs > best.docs)) best = { word: candidate, edits: away, docs };
    }
    return best?.word;
  }

  /** The keys of a known word: as written, folded, or the stem of either. */
  private knownKeys(word: string): string[] {
    const folded = fold(word);
    const keys = new Set<string>();
    const surface = this.vocabulary.get(folded);
    if (surface) keys.add(surface.key);
    for (const key of [keyOf(word, this.language), keyOf(folded, this.language)]) if (this.postings.has(key)) keys.add(key);
    return [...keys];
  }

  /** Whether the pieces hold a word, a synonym of it, or words it is short for or the end of. */
  reachable(word: string): boolean {
    return this.resolves(word) || this.partOf(fold(word)).length > 0;
  }

  /** Whether the pieces hold a word or one of its synonyms. */
  resolves(word: string): boolean {
    if (this.knownKeys(word).length > 0) return true;
    for (const synonym of synonymsOf(keyOf(word, this.language), this.language)) if (this.postings.has(synonym)) return true;
    return false;
  }

  /** An unknown compound split before the longest end the pieces hold (`versand|kosten`, `arbeits|zeit` → `arbeit`). */
  private split(folded: string): [string, string] | undefined {
    for (let at = 2; at <= folded.length - MIN_PART; at += 1) {
      const end = folded.slice(at);
      if (!this.resolves(end)) continue;
      const left = folded.slice(0, at);
      return [left.endsWith('s') && !this.resolves(left) && this.resolves(left.slice(0, -1)) ? left.slice(0, -1) : left, end];
    }
    return undefined;
  }

  /** Up to three held keys an unknown word's key begins (`bici` → `biciclet`) or, when compounding, ends. */
  private partOf(word: string): string[] {
    const key = keyOf(word, this.language);
    // The stemmer keeps a German verb's -t/-et (`kostet`, `abholt`): the bare stem begins or ends the held word.
    const end = this.language === 'german' ? key.replace(/e?t$/, '') : key;
    // A stem too short to say much (`hiver` → `hiv`) is looked for as written (`hivernage`).
    const start = end.length >= MIN_PART ? end : word.length > MIN_PART ? word : undefined;
    if (start === undefined) return [];
    const found = this.beginning(start, SHORTENED);
    if (COMPOUNDING.has(this.language) && end.length >= MIN_PART) found.push(...this.ending(end, Math.max(1, key.length + 1 - end.length)));
    return mostHeld(found, 3);
  }

  /** Up to `COMPOUNDS` held keys (the most frequent) with `part` as their beginning or end and a part of their own beside it. */
  private compoundsOf(part: string): string[] {
    if (part.length < MIN_PART || part.startsWith('#')) return [];
    return mostHeld([...this.beginning(part, MIN_REST), ...this.ending(part, MIN_REST)], COMPOUNDS);
  }

  /** The postings of the held keys that begin with `prefix` and are at least `longer` letters longer. */
  private beginning(prefix: string, longer: number): Posting[] {
    return this.around(this.sortedKeys().forward, prefix, longer, (held) => held);
  }

  /** The postings of the held keys that end with `suffix` and are at least `longer` letters longer. */
  private ending(suffix: string, longer: number): Posting[] {
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

  /** A question word as the pieces may hold it (none: a stop word; two: a compound's parts); corrected and split only when `native`. */
  terms(word: string, native: boolean, name = false): QueryTerm[] {
    const folded = fold(word);
    if (isStopWord(folded)) return [];
    const alternatives = new Map<Posting, number>();
    const offer = (key: string, factor: number) => {
      const posting = this.postings.get(key);
      if (posting && (alternatives.get(posting) ?? 0) < factor) alternatives.set(posting, factor);
    };
    let keys = this.knownKeys(word);
    for (const key of keys) offer(key, 1);
    if (keys.length === 0 && native && !isNumber(folded)) {
      keys = this.partOf(folded);
      const parts = keys.length === 0 && COMPOUNDING.has(this.language) && !this.resolves(folded) ? this.split(folded) : undefined;
      if (parts) {
        // Each part weighs its share of the compound's letters: a piece holding one part matches part of the word.
        return parts.flatMap((part) =>
          this.terms(part, native).map((term) => ({ ...term, weight: (term.weight * part.length) / folded.length })),
        );
      }
      if (keys.length === 0) {
        const corrected = this.correction(folded);
        if (corrected) keys = this.knownKeys(corrected);
      }
      for (const key of keys) offer(key, this.tuning.correctedFactor);
    }
    const bases = new Map<string, number>(keys.map((key) => [key, alternatives.get(this.postings.get(key) as Posting) ?? 1]));
    if (native) {
      for (const key of keys.length > 0 ? keys : [keyOf(word, this.language)]) {
        for (const synonym of synonymsOf(key, this.language)) {
          offer(synonym, this.tuning.synonymFactor);
          if (!bases.has(synonym)) bases.set(synonym, this.tuning.synonymFactor);
        }
      }
    }
    // What the word weighs is its own rarity, not that of the compounds holding it.
    const own = [...alternatives.keys()];
    if (native && COMPOUNDING.has(this.language)) {
      for (const [base, factor] of bases) for (const key of this.compoundsOf(base)) offer(key, factor * this.tuning.correctedFactor);
    }
    const known = [...alternatives].map(([posting, factor]) => ({ posting, factor }));
    const light = this.idf(1) * this.tuning.unknownNumberWeight;
    const weight =
      known.length > 0
        ? Math.min(
            Math.max(...(own.length > 0 ? own : known.map((a) => a.posting)).map((posting) => this.idf(posting.slots.length))),
            LIGHT_WORDS.has(folded) ? light : Infinity,
          )
        : isNumber(folded) || GENERIC_WORDS.has(folded) || LIGHT_WORDS.has(folded)
          ? light
          : this.idf(1) * (name && !COMPOUNDING.has(this.language) ? this.tuning.unknownNameWeight : this.tuning.unknownWeight);
    return [{ alternatives: known, weight }];
  }

  /** A question's asking for a concept, if a piece says it (or, for a time, a delay). */
  conceptTerm(concept: Concept): QueryTerm | undefined {
    const alternatives: Alternative[] = [];
    const offer = (key: Concept, factor: number) => {
      const posting = this.postings.get(key);
      if (posting) alternatives.push({ posting, factor });
    };
    offer(concept, 1);
    // "When" is answered by a time of day, or by a delay ("within 14 days"), not by any duration ("12 minutes on foot").
    if (concept === '#time') offer('#delay', this.tuning.synonymFactor);
    if (alternatives.length === 0) return undefined;
    return { alternatives, weight: Math.max(...alternatives.map((a) => this.idf(a.posting.slots.length))) * this.tuning.conceptWeight };
  }
}

/** What a question asks, as each language's ranking reads it. */
interface Asked {
  /** Its words, less those asking for a concept. */
  words: string[];
  concepts: Concept[];
  /** Its words written as names. */
  names: Set<string>;
  /** German verbs whose particle closes the clause (`holt … ab`), and the verb they make (`abholt`). */
  separable: Separable[];
}

interface Separable {
  verb: string;
  particle: string;
  joined: string;
}

interface Candidate {
  doc: Doc;
  language: LanguageIndex;
  score: number;
  matched: number;
  terms: QueryTerm[];
}

/** One account's pieces, per language, trusted or nothing. See docs/adr/009-knowledge-search-in-memory.md */
export class AccountIndex {
  private readonly byRef = new Map<string, Doc & { language: LanguageIndex }>();
  /** Database id → external_ref: a deleted piece is known by its id only. */
  private readonly refs = new Map<string, string>();
  private readonly languages = new Map<SearchLanguage, LanguageIndex>();

  constructor(private readonly tuning: Tuning = TUNING) {}

  get size(): number {
    return this.byRef.size;
  }

  /** Adds a piece, or replaces the one with its external_ref (unless it is the same version). */
  upsert(piece: IndexedPiece): void {
    const held = this.byRef.get(piece.external_ref)?.piece;
    if (held && piece.version !== undefined && held.id === piece.id && held.version === piece.version) return;
    this.remove(piece.external_ref);
    let language = this.languages.get(piece.lang);
    if (!language) this.languages.set(piece.lang, (language = new LanguageIndex(piece.lang, this.tuning)));
    this.byRef.set(piece.external_ref, Object.assign(language.add(piece), { language }));
    this.refs.set(piece.id, piece.external_ref);
  }

  remove(ref: string): void {
    const doc = this.byRef.get(ref);
    if (!doc) return;
    doc.language.remove(doc);
    this.byRef.delete(ref);
    this.refs.delete(doc.piece.id);
    if (doc.language.count === 0) this.languages.delete(doc.language.language);
  }

  /** Removes the piece with this database id, if the index holds it. */
  removeId(id: string): void {
    const ref = this.refs.get(id);
    if (ref !== undefined) this.remove(ref);
  }

  /** The trusted pieces for a question, best first, each with its matching passage and its share of the question matched. */
  search(question: string, visitor: SearchLanguage, limit: number): KnowledgeSearchResult[] {
    const asked = words(question);
    const { concepts, asking } = conceptsAsked(question);
    const topical = asked.filter((word) => !asking.has(fold(word)));
    const names = namesIn(question);
    const separable = visitor === 'german' ? separableVerbs(question) : [];
    const candidates: Candidate[] = [];
    for (const language of this.languages.values()) {
      const native = language.language === visitor;
      candidates.push(...this.rank(language, { words: topical, concepts: native ? concepts : [], names, separable }, native));
    }
    candidates.sort((a, b) => b.score - a.score || (a.doc.piece.external_ref < b.doc.piece.external_ref ? -1 : 1));
    const [best] = candidates;
    const rival = candidates.find((c) => c !== best && c.language === best?.language);
    const passages = new Map<Candidate, string>();
    const passageOf = (c: Candidate) => {
      let found = passages.get(c);
      if (found === undefined)
        passages.set(c, (found = bestSentences((c.doc.sentences ??= c.language.sentencesOf(c.doc.piece.text)), matchedKeys(c))));
      return found;
    };
    // Two pieces matching the same share of the question, with near scores: the question does not tell them apart,
    // unless they are versions of one subject (`Alpa tent: rental`, `Brisk tent: rental`) or answer alike.
    if (best && rival && best.matched - rival.matched < TIE && rival.score >= best.score * this.tuning.tieRatio) {
      const alike = (a: string, b: string) => overlap(new Set(words(a)), new Set(words(b))) >= SAME_SUBJECT;
      if (overlap(best.doc.subject, rival.doc.subject) < SAME_SUBJECT && !alike(passageOf(best), passageOf(rival))) return [];
    }
    return candidates.slice(0, limit).map((c) => ({
      external_ref: c.doc.piece.external_ref,
      heading: c.doc.piece.heading,
      url: c.doc.piece.url,
      passage: passageOf(c),
      score: Math.min(0.999, Math.round(c.matched * 1000) / 1000),
    }));
  }

  /** Every piece of `language` holding a question word or concept, with its BM25 score and the share of the question it matches. */
  private rank(language: LanguageIndex, asked: Asked, native: boolean): Candidate[] {
    let words = asked.words;
    if (native) {
      for (const { verb, particle, joined } of asked.separable) {
        if (language.reachable(joined)) words = words.filter((w) => w !== particle).map((w) => (w === verb ? joined : w));
      }
      words = joinOpenCompounds(language, words);
    }
    const terms = [
      ...[...new Set(words.map(fold))].flatMap((word) =>
        language.terms(words.find((w) => fold(w) === word) ?? word, native, asked.names.has(word)),
      ),
      ...asked.concepts.map((concept) => language.conceptTerm(concept)),
    ].filter((t): t is QueryTerm => t !== undefined);
    const total = terms.reduce((sum, term) => sum + term.weight, 0);
    if (total === 0) return [];
    const { k1, minCoverage } = this.tuning;
    language.sums();
    const norms = language.normalised(k1, this.tuning.b);
    const { score, matched, termScore, termFactor } = language;
    const touched: number[] = [];
    for (const term of terms) {
      // A term counts once per piece: by the alternative (word, correction, synonym) that scores best there.
      const termTouched: number[] = [];
      for (const { posting, factor } of term.alternatives) {
        const { slots, tf } = posting;
        const weight = factor * language.idf(slots.length) * (k1 + 1);
        for (let i = 0; i < slots.length; i += 1) {
          const slot = slots[i] as number;
          const frequency = tf[i] as number;
          const value = (weight * frequency) / (frequency + (norms[slot] as number));
          if (termScore[slot] === 0) termTouched.push(slot);
          if (value > (termScore[slot] as number)) {
            termScore[slot] = value;
            termFactor[slot] = factor;
          }
        }
      }
      for (const slot of termTouched) {
        if (score[slot] === 0) touched.push(slot);
        score[slot] = (score[slot] as number) + (termScore[slot] as number);
        matched[slot] = (matched[slot] as number) + (term.weight * (termFactor[slot] as number)) / total;
        termScore[slot] = 0;
        termFactor[slot] = 0;
      }
    }
    const trusted: Candidate[] = [];
    for (const slot of touched) {
      if ((matched[slot] as number) >= minCoverage) {
        trusted.push({ doc: language.slots[slot] as Doc, language, score: score[slot] as number, matched: matched[slot] as number, terms });
      }
      score[slot] = 0;
      matched[slot] = 0;
    }
    return trusted;
  }
}

/** German verb particles that close a clause when the verb is conjugated (`Holt ihr das Velo ab?`). */
const PARTICLES = new Set(['ab', 'an', 'auf', 'aus', 'ein', 'mit', 'vor', 'weg', 'zu', 'zurück', 'vorbei', 'heim', 'los', 'um', 'nach']);
/** Words before a German question's verb: question words and subjects. */
const BEFORE_VERB = new Set(['wann', 'wie', 'wo', 'warum', 'was', 'wer', 'wieso', 'ich', 'du', 'er', 'sie', 'es', 'wir', 'ihr', 'man']);

/** The German verbs of a question whose particle closes the clause, joined with it (`holt … ab` → `abholt`). */
function separableVerbs(question: string): Separable[] {
  const found: Separable[] = [];
  for (const clause of question.split(/[.?!,;:()]+/)) {
    const said = words(clause);
    const particle = said[said.length - 1];
    if (said.length < 3 || particle === undefined || !PARTICLES.has(particle)) continue;
    const verb = said.find((word) => !BEFORE_VERB.has(word));
    if (verb !== undefined && verb !== particle) found.push({ verb, particle, joined: particle + verb });
  }
  return found;
}

/** The folded words written with a capital inside a sentence (`a new Brompton`): names of things. */
function namesIn(question: string): Set<string> {
  const names = new Set<string>();
  for (const match of question.matchAll(/(?<=[\p{L}\p{N},;:'"]\s+)\p{Lu}\p{Ll}+/gu)) names.add(fold(match[0]));
  return names;
}

/** The question's words with two neighbours written as one where the pieces hold that word or its synonym (`gift card` → `giftcard`). */
function joinOpenCompounds(language: LanguageIndex, asked: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < asked.length; i += 1) {
    const [word, next] = [asked[i] as string, asked[i + 1]];
    const part = (w: string) => w.length >= 3 && !isStopWord(fold(w)) && !isNumber(w);
    if (next !== undefined && part(word) && part(next) && language.resolves(word + next)) {
      out.push(word + next);
      i += 1;
    } else out.push(word);
  }
  return out;
}

/** The keys by which a piece matched the question's terms. */
function matchedKeys(candidate: Candidate): Set<string> {
  const held = new Set(candidate.doc.postings);
  return new Set(candidate.terms.flatMap((term) => term.alternatives.filter((a) => held.has(a.posting)).map((a) => a.posting.key)));
}

/** The answering part of a piece: a short text whole, else its best sentences up to PASSAGE_WORDS. */
export function passage(text: string, keys: ReadonlySet<string>, language: SearchLanguage): string {
  return bestSentences(sentencesOf(text, language), keys);
}

const wordCount = (text: string) => text.split(/\s+/).filter(Boolean).length;

/**
 * A text's sentences with the keys of their words (one sentence, the text trimmed, when it is short
 * enough to be its own passage); `held` keeps only the keys it returns, as it returns them.
 */
function sentencesOf(text: string, language: SearchLanguage, held: (key: string) => string | undefined = (key) => key): Sentence[] {
  const split = wordCount(text) <= PASSAGE_WORDS ? [text.trim()] : text.split(/(?<=[.!?;:])\s+/);
  return split.map((sentence) => ({
    text: sentence,
    keys: words(sentence).flatMap((w) => held(keyOf(w, language)) ?? []),
    length: wordCount(sentence),
  }));
}

/** The sentences holding the most of `keys`, in their order, up to PASSAGE_WORDS (`…` where some are left out between). */
function bestSentences(sentences: readonly Sentence[], keys: ReadonlySet<string>): string {
  if (sentences.length === 1 && (sentences[0] as Sentence).length <= PASSAGE_WORDS) return (sentences[0] as Sentence).text;
  const scored = sentences.map((sentence, index) => ({ sentence, index, hits: sentence.keys.filter((key) => keys.has(key)).length }));
  const chosen: typeof scored = [];
  let used = 0;
  for (const candidate of [...scored].sort((a, b) => b.hits - a.hits || a.index - b.index)) {
    const size = candidate.sentence.length;
    if (chosen.length > 0 && (candidate.hits === 0 || used + size > PASSAGE_WORDS)) continue;
    chosen.push(candidate);
    used += size;
  }
  chosen.sort((a, b) => a.index - b.index);
  const parts = chosen.map((c, i) =>
    i > 0 && (chosen[i - 1] as { index: number }).index !== c.index - 1 ? `… ${c.sentence.text}` : c.sentence.text,
  );
  const joined = parts.join(' ');
  const cut = joined.split(/\s+/);
  return cut.length > PASSAGE_WORDS * 1.5 ? `${cut.slice(0, PASSAGE_WORDS).join(' ')} …` : joined;
}
