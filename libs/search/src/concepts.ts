/**
 * What a question word asks for, and the pieces that say it: "when" asks for a time of day, which a
 * piece says as "9:00" or "6 pm", or for a delay ("within 14 days"); "how long" for a duration ("two
 * days"); "how much" for an amount ("25 CHF"). A piece's times, durations, delays and amounts are
 * indexed under the concept's key (a `#` key, which no word can be), and the question's words that
 * ask for it match that key.
 */
import { fold, words } from './analyzer';

export type Concept = '#time' | '#duration' | '#delay' | '#amount';

const NUMBER_WORDS = `a an one two three four five six seven eight nine ten eleven twelve fifteen twenty thirty few several
  ein eine einen einer zwei drei vier fünf sechs sieben acht neun zehn elf zwölf fünfzehn zwanzig dreissig paar einige
  un une deux trois quatre cinq six sept huit neuf dix onze douze quinze vingt trente quelques plusieurs
  uno una dos tres cuatro cinco seis siete ocho nueve diez once doce quince veinte treinta unos unas pocos varios`;
const UNITS = `minute minutes min mins hour hours hr hrs day days night nights week weeks month months year years
  minute minuten stunde stunden tag tage tagen nacht nächte nächten woche wochen monat monate monaten jahr jahre jahren
  arbeitstag arbeitstage arbeitstagen werktag werktage werktagen
  minute minutes heure heures jour jours nuit nuits semaine semaines mois an ans année années
  minuto minutos hora horas día días noche noches semana semanas mes meses año años laborables hábiles`;
const CURRENCIES = `chf fr sfr eur euro euros usd dollar dollars gbp pound pounds franc francs franken cent cents rappen
  centimes céntimos kr sek nok dkk`;

/** Words that make a duration a delay, which answers "when" ("within 14 days", "en 14 días"). */
const DELAY = `within in after innerhalb binnen nach dans sous après en dentro tras`;

const set = (list: string) => new Set(list.split(/\s+/).filter(Boolean).map(fold));
const NUMBER_WORD = set(NUMBER_WORDS);
const UNIT = set(UNITS);
const CURRENCY = set(CURRENCIES);
const DELAY_WORD = set(DELAY);

const CLOCK = /(?<![\p{N}.,:])(?:[01]?\d|2[0-4])(?:[:.h]\s?[0-5]\d|\s?(?:am|pm|a\.m\.|p\.m\.|uhr|h)(?!\p{L}))/giu;
const CURRENCY_SIGN = /[$€£¥]\s?\d|\d\s?[$€£¥]/gu;

/** How many times a piece's text says each concept ("9:00 to 18:30" says a time twice); `folded`: its words, folded. */
export function conceptsOf(text: string, folded: readonly string[] = words(text).map(fold)): Map<Concept, number> {
  const found = new Map<Concept, number>();
  const add = (concept: Concept, n: number) => n > 0 && found.set(concept, (found.get(concept) ?? 0) + n);
  add('#time', [...text.matchAll(CLOCK)].length);
  add('#amount', [...text.matchAll(CURRENCY_SIGN)].length);
  let amounts = 0;
  let durations = 0;
  let delays = 0;
  for (let i = 1; i < folded.length; i += 1) {
    const [before, word] = [folded[i - 1] as string, folded[i] as string];
    const counted = /^\p{N}+$/u.test(before) || NUMBER_WORD.has(before);
    if (counted && UNIT.has(word)) {
      durations += 1;
      if (DELAY_WORD.has(folded[i - 2] ?? '') || DELAY_WORD.has(folded[i - 3] ?? '')) delays += 1;
    }
    if ((/^\p{N}+$/u.test(before) && CURRENCY.has(word)) || (CURRENCY.has(before) && /^\p{N}+$/u.test(word))) amounts += 1;
  }
  add('#duration', durations);
  add('#delay', delays);
  add('#amount', amounts);
  return found;
}

/** Question phrases (folded words, in order) and the concept each asks for; the longest match wins. */
const ASKING: Array<[string[], Concept]> = (
  [
    ['when', '#time'],
    ['what time', '#time'],
    ['which time', '#time'],
    ['till when', '#time'],
    ['until when', '#time'],
    ['wann', '#time'],
    ['um wie viel uhr', '#time'],
    ['um wieviel uhr', '#time'],
    ['wie spät', '#time'],
    ['quand', '#time'],
    ['à quelle heure', '#time'],
    ['a quelle heure', '#time'],
    ['jusqu à quelle heure', '#time'],
    ['cuándo', '#time'],
    ['a qué hora', '#time'],
    ['qué hora', '#time'],
    ['hasta qué hora', '#time'],
    ['how long', '#duration'],
    ['how many days', '#duration'],
    ['wie lange', '#duration'],
    ['wie lang', '#duration'],
    ['wie viele tage', '#duration'],
    ['combien de temps', '#duration'],
    ['combien de jours', '#duration'],
    ['cuánto tiempo', '#duration'],
    ['cuántos días', '#duration'],
    ['cuánto tarda', '#duration'],
    ['how much', '#amount'],
    ['wie viel', '#amount'],
    ['wieviel', '#amount'],
    ['combien', '#amount'],
    ['cuánto', '#amount'],
    ['cuánta', '#amount'],
  ] as Array<[string, Concept]>
)
  .map(([phrase, concept]): [string[], Concept] => [phrase.split(' ').map(fold), concept])
  .sort((a, b) => b[0].length - a[0].length);

/** A question phrase asks only at the start of a clause, one word in at most ("till when", "ab wann"): later, "when" joins clauses. */
const ASKING_FROM = 1;

/** The concepts a question asks for, and the words that ask (they are not words of the topic). */
export function conceptsAsked(question: string): { concepts: Concept[]; asking: Set<string> } {
  const concepts = new Set<Concept>();
  const asking = new Set<string>();
  for (const clause of question.split(/[.?!,;:¿¡()]+/)) {
    const folded = words(clause).map(fold);
    for (let i = 0; i <= Math.min(ASKING_FROM, folded.length - 1); i += 1) {
      const found = ASKING.find(([phrase]) => phrase.every((word, k) => folded[i + k] === word));
      if (!found) continue;
      concepts.add(found[1]);
      for (const word of found[0]) asking.add(word);
      break;
    }
  }
  return { concepts: [...concepts], asking };
}
