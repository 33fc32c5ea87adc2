import { stemmer as dutch } from '@orama/stemmers/dutch';
import { stemmer as english } from '@orama/stemmers/english';
import { stemmer as french } from '@orama/stemmers/french';
import { stemmer as german } from '@orama/stemmers/german';
import { stemmer as italian } from '@orama/stemmers/italian';
import { stemmer as portuguese } from '@orama/stemmers/portuguese';
import { stemmer as spanish } from '@orama/stemmers/spanish';
import type { SearchLanguage } from './language';

/** Snowball stemmers of the stemmed languages; `simple` keeps words as they are. */
const STEMMERS: Record<SearchLanguage, (word: string) => string> = {
  english,
  german,
  french,
  spanish,
  italian,
  portuguese,
  dutch,
  simple: (word) => word,
};

/** Languages whose Snowball stemmer keeps a plural `s` after a vowel (`vélos`, `bicis`): it is taken off after stemming. */
const PLURAL_S = new Set<SearchLanguage>(['french', 'spanish', 'portuguese', 'italian']);

/** Lower case without accents (`Rückgabe` → `ruckgabe`, `ß` → `ss`): how words are compared. */
export function fold(word: string): string {
  return word.toLowerCase().normalize('NFD').replace(/\p{M}/gu, '').replace(/ß/g, 'ss').replace(/æ/g, 'ae').replace(/œ/g, 'oe');
}

/** A text's lower-case words, accents kept (`E-Bike` → `ebike`, `Wi-Fi` → `wifi`, `l'atelier` → `l`, `atelier`, `1,000` → `1000`). */
export function words(text: string): string[] {
  const out: string[] = [];
  const joined = text.toLowerCase().replace(/(?<=\p{N})[.,'’](?=\p{N}{2,3}(?!\p{N}))/gu, '');
  for (const match of joined.matchAll(/[\p{L}\p{N}]+(?:-[\p{L}\p{N}]+)*/gu)) {
    const parts = match[0].split('-');
    // Parts of at most two letters each are one word (`Wi-Fi` → `wifi`).
    if (parts.length > 1 && parts.every((part) => [...part].length <= 2)) {
      out.push(parts.join(''));
      continue;
    }
    let prefix = '';
    for (const part of parts) {
      if ([...part].length === 1 && /\p{L}/u.test(part) && parts.length > 1) prefix += part;
      else {
        out.push(prefix + part);
        prefix = '';
      }
    }
    if (prefix) out.push(prefix);
  }
  return out;
}

/** Keys already computed, per language and word: most words of a text are frequent ones. */
const KEYS = new Map<string, string>();
const KEYS_HELD = 200_000;

/** The search key of a word in a language: its stem, without accents. */
export function keyOf(word: string, language: SearchLanguage): string {
  const memo = `${language}:${word}`;
  const known = KEYS.get(memo);
  if (known !== undefined) return known;
  let key = fold(STEMMERS[language](word));
  if (PLURAL_S.has(language) && key.length > 3 && key.endsWith('s') && !key.endsWith('ss')) key = key.slice(0, -1);
  if (KEYS.size >= KEYS_HELD) KEYS.clear();
  KEYS.set(memo, key);
  return key;
}

/** A number, or a measure written as one word ("85m", "30kg"). */
export const isNumber = (word: string) => /^\p{N}+\p{L}{0,3}$/u.test(word);
