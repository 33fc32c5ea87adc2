/**
 * A question as each language's pieces may answer it: its words less stop words, each matching the
 * keys the pieces hold for it (corrected, split, a synonym, a compound), with what it weighs; and the
 * concepts it asks for ("when": a time).
 */
import { fold, isNumber, keyOf, words } from './analyzer';
import { compoundsOf, COMPOUNDING, joinOpenCompounds, partOf, reachable, Separable, separableVerbs, split } from './compounds';
import { Concept, conceptsAsked } from './concepts';
import { SearchLanguage } from './language';
import { informativeness } from './background';
import { GENERIC_WORDS, isStopWord, LIGHT_WORDS, synonymsOf } from './lexicon';
import { LanguageIndex, Posting } from './postings';

/** A posting a question word may match, and what a match by it counts for (less than 1: a correction, a synonym, a compound). */
export interface Alternative {
  posting: Posting;
  factor: number;
}

/** A question word in one language: the keys it may match, and what it weighs in the question. */
export interface QueryTerm {
  alternatives: Alternative[];
  weight: number;
}

/** What a question asks, as each language's ranking reads it. */
export interface Asked {
  /** Its words, less those asking for a concept. */
  words: string[];
  concepts: Concept[];
  /** Its words written as names. */
  names: Set<string>;
  /** German verbs whose particle closes the clause (`holt … ab`), and the verb they make (`abholt`). */
  separable: Separable[];
}

/** The folded words written with a capital inside a sentence (`a new Brompton`): names of things. */
function namesIn(question: string): Set<string> {
  const names = new Set<string>();
  for (const match of question.matchAll(/(?<=[\p{L}\p{N},;:'"]\s+)\p{Lu}\p{Ll}+/gu)) names.add(fold(match[0]));
  return names;
}

/** What a question asks, in the visitor's language. */
export function readQuestion(question: string, visitor: SearchLanguage): Asked {
  const asked = words(question);
  const { concepts, asking } = conceptsAsked(question);
  const topical = asked.filter((word) => !asking.has(fold(word)));
  const names = namesIn(question);
  const separable = visitor === 'german' ? separableVerbs(question) : [];
  return { words: topical, concepts, names, separable };
}

/** The terms of a question in one language (its concepts count only in the visitor's language, `native`). */
export function questionTerms(language: LanguageIndex, asked: Asked, native: boolean): QueryTerm[] {
  let words = asked.words;
  if (native) {
    for (const { verb, particle, joined } of asked.separable) {
      if (reachable(language, joined)) words = words.filter((w) => w !== particle).map((w) => (w === verb ? joined : w));
    }
    words = joinOpenCompounds(language, words);
  }
  return [
    ...[...new Set(words.map(fold))].flatMap((word) =>
      termsOf(language, words.find((w) => fold(w) === word) ?? word, native, asked.names.has(word)),
    ),
    ...(native ? asked.concepts : []).map((concept) => conceptTerm(language, concept)),
  ].filter((t): t is QueryTerm => t !== undefined);
}

/** A question word as the pieces may hold it (none: a stop word; two: a compound's parts); corrected and split only when `native`. */
export function termsOf(index: LanguageIndex, word: string, native: boolean, name = false, compound?: string): QueryTerm[] {
  const folded = fold(word);
  if (isStopWord(folded)) return [];
  const alternatives = new Map<Posting, number>();
  const offer = (key: string, factor: number) => {
    const posting = index.postings.get(key);
    if (posting && (alternatives.get(posting) ?? 0) < factor) alternatives.set(posting, factor);
  };
  let keys = index.knownKeys(word);
  for (const key of keys) offer(key, 1);
  if (keys.length === 0 && native && !isNumber(folded)) {
    keys = partOf(index, folded);
    const parts = keys.length === 0 && COMPOUNDING.has(index.language) && !index.resolves(folded) ? split(index, folded) : undefined;
    if (parts) {
      // Each part weighs its share of the compound's letters: a piece holding one part matches part of the word.
      return parts.flatMap((part) =>
        // An unknown part says as much as the compound (`kinder|bett` is no common word however common `kinder` is).
        termsOf(index, part, native, false, folded).map((term) => ({ ...term, weight: (term.weight * part.length) / folded.length })),
      );
    }
    if (keys.length === 0) {
      const corrected = index.vocabulary.correction(folded);
      if (corrected) keys = index.knownKeys(corrected);
    }
    for (const key of keys) offer(key, index.tuning.correctedFactor);
  }
  const bases = new Map<string, number>(keys.map((key) => [key, alternatives.get(index.postings.get(key) as Posting) ?? 1]));
  if (native) {
    for (const key of keys.length > 0 ? keys : [keyOf(word, index.language)]) {
      for (const synonym of synonymsOf(key, index.language)) {
        offer(synonym, index.tuning.synonymFactor);
        if (!bases.has(synonym)) bases.set(synonym, index.tuning.synonymFactor);
      }
    }
  }
  // What the word weighs is its own rarity, not that of the compounds holding it.
  const own = [...alternatives.keys()];
  if (native && COMPOUNDING.has(index.language)) {
    for (const [base, factor] of bases) for (const key of compoundsOf(index, base)) offer(key, factor * index.tuning.correctedFactor);
  }
  const known = [...alternatives].map(([posting, factor]) => ({ posting, factor }));
  const light = index.idf(1) * index.tuning.unknownNumberWeight;
  // A key only taught questions hold finds their pieces without saying how much the word says: that is told by the
  // keys pieces hold, or, held by none, as of an unknown word.
  const held = (postings: Posting[]) => postings.filter((posting) => posting.df > 0);
  const ownHeld = held(own);
  const said = ownHeld.length > 0 ? ownHeld : held(known.map((a) => a.posting));
  const weight =
    said.length > 0
      ? Math.min(Math.max(...said.map((posting) => index.idf(posting.df))), LIGHT_WORDS.has(folded) ? light : Infinity)
      : isNumber(folded) || GENERIC_WORDS.has(folded) || LIGHT_WORDS.has(folded)
        ? light
        : index.idf(1) *
          (name && !COMPOUNDING.has(index.language) ? index.tuning.unknownNameWeight : unknownWeight(index, compound ?? word));
  return [{ alternatives: known, weight }];
}

/** What an unknown word weighs against a word one piece holds: less the more frequent it is in its language (background.ts). */
function unknownWeight(index: LanguageIndex, word: string): number {
  const { unknownWeight, unknownFloor, commonRank } = index.tuning;
  const floor = unknownWeight * unknownFloor;
  return floor + (unknownWeight - floor) * informativeness(word, index.language, commonRank);
}

/** A question's asking for a concept, if a piece says it (or, for a time, a delay). */
export function conceptTerm(index: LanguageIndex, concept: Concept): QueryTerm | undefined {
  const alternatives: Alternative[] = [];
  const offer = (key: Concept, factor: number) => {
    const posting = index.postings.get(key);
    if (posting) alternatives.push({ posting, factor });
  };
  offer(concept, 1);
  // "When" is answered by a time of day, or by a delay ("within 14 days"), not by any duration ("12 minutes on foot").
  if (concept === '#time') offer('#delay', index.tuning.synonymFactor);
  if (alternatives.length === 0) return undefined;
  return { alternatives, weight: Math.max(...alternatives.map((a) => index.idf(a.posting.df))) * index.tuning.conceptWeight };
}
