/**
 * Words that are parts of others: short forms (`bici` for `bicicleta`), the compounds German and
 * Dutch write as one word (`werkstatt|termin`), two question words the pieces write as one
 * (`gift card`: `giftcard`), and German verbs whose particle closes the clause (`holt … ab`).
 */
import { fold, isNumber, keyOf, words } from './analyzer';
import { SearchLanguage } from './language';
import { isStopWord } from './lexicon';
import { LanguageIndex, Posting } from './postings';

/** The shortest word part a short form or a compound is matched by. */
const MIN_PART = 4;
/** Letters a short form leaves out at least (`bici|cleta`; `moto` is not short for `motor`). */
const SHORTENED = 2;

/** The shortest rest of a compound beside a part the question holds (`werkstatt|termin`). */
const MIN_REST = 3;
/** Compounds a question word or synonym matches at most. */
const COMPOUNDS = 5;

/** Languages that write compounds as one word, which the search splits when a question's compound is unknown. */
export const COMPOUNDING = new Set<SearchLanguage>(['german', 'dutch']);

/** The keys of the `most` postings held by the most pieces, each once. */
function mostHeld(postings: Posting[], most: number): string[] {
  return [...new Set(postings)]
    .sort((a, b) => b.slots.length - a.slots.length)
    .slice(0, most)
    .map((posting) => posting.key);
}

/** Whether the pieces hold a word, a synonym of it, or words it is short for or the end of. */
export function reachable(index: LanguageIndex, word: string): boolean {
  return index.resolves(word) || partOf(index, fold(word)).length > 0;
}

/** An unknown compound split before the longest end the pieces hold (`versand|kosten`, `arbeits|zeit` → `arbeit`). */
export function split(index: LanguageIndex, folded: string): [string, string] | undefined {
  for (let at = 2; at <= folded.length - MIN_PART; at += 1) {
    const end = folded.slice(at);
    if (!index.resolves(end)) continue;
    const left = folded.slice(0, at);
    return [left.endsWith('s') && !index.resolves(left) && index.resolves(left.slice(0, -1)) ? left.slice(0, -1) : left, end];
  }
  return undefined;
}

/** Up to three held keys an unknown word's key begins (`bici` → `biciclet`) or, when compounding, ends. */
export function partOf(index: LanguageIndex, word: string): string[] {
  const key = keyOf(word, index.language);
  // The stemmer keeps a German verb's -t/-et (`kostet`, `abholt`): the bare stem begins or ends the held word.
  const end = index.language === 'german' ? key.replace(/e?t$/, '') : key;
  // A stem too short to say much (`hiver` → `hiv`) is looked for as written (`hivernage`).
  const start = end.length >= MIN_PART ? end : word.length > MIN_PART ? word : undefined;
  if (start === undefined) return [];
  const found = index.beginning(start, SHORTENED);
  if (COMPOUNDING.has(index.language) && end.length >= MIN_PART) found.push(...index.ending(end, Math.max(1, key.length + 1 - end.length)));
  return mostHeld(found, 3);
}

/** Up to `COMPOUNDS` held keys (the most frequent) with `part` as their beginning or end and a part of their own beside it. */
export function compoundsOf(index: LanguageIndex, part: string): string[] {
  if (part.length < MIN_PART || part.startsWith('#')) return [];
  return mostHeld([...index.beginning(part, MIN_REST), ...index.ending(part, MIN_REST)], COMPOUNDS);
}

/** A German verb of a question and the particle closing its clause, joined (`holt … ab` → `abholt`). */
export interface Separable {
  verb: string;
  particle: string;
  joined: string;
}

/** German verb particles that close a clause when the verb is conjugated (`Holt ihr das Velo ab?`). */
const PARTICLES = new Set(['ab', 'an', 'auf', 'aus', 'ein', 'mit', 'vor', 'weg', 'zu', 'zurück', 'vorbei', 'heim', 'los', 'um', 'nach']);
/** Words before a German question's verb: question words and subjects. */
const BEFORE_VERB = new Set(['wann', 'wie', 'wo', 'warum', 'was', 'wer', 'wieso', 'ich', 'du', 'er', 'sie', 'es', 'wir', 'ihr', 'man']);

/** The German verbs of a question whose particle closes the clause, joined with it (`holt … ab` → `abholt`). */
export function separableVerbs(question: string): Separable[] {
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

/** The question's words with two neighbours written as one where the pieces hold that word or its synonym (`gift card` → `giftcard`). */
export function joinOpenCompounds(language: LanguageIndex, asked: string[]): string[] {
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
