/**
 * The languages the search stems, named as PostgreSQL's text search configurations, and `simple`
 * (no stemming) for every other language. The migration creates `knowledge.<lang>_unaccent` for each.
 */
export const SEARCH_LANGUAGES = ['english', 'german', 'french', 'spanish', 'italian', 'portuguese', 'dutch', 'simple'] as const;
export type SearchLanguage = (typeof SEARCH_LANGUAGES)[number];

const BY_SUBTAG: Record<string, SearchLanguage> = {
  en: 'english',
  de: 'german',
  fr: 'french',
  es: 'spanish',
  it: 'italian',
  pt: 'portuguese',
  nl: 'dutch',
};

/** The search language of a BCP 47 tag (`de-CH` → german); `simple` for languages without a stemmer. */
export function languageOfTag(tag: string): SearchLanguage {
  return BY_SUBTAG[tag.split('-')[0]?.toLowerCase() ?? ''] ?? 'simple';
}

/**
 * Frequent function words that tell the languages apart (words shared by two of them left out:
 * `de`, `en`, `que`, `la`, `a`…). Lower case, accents kept as written.
 */
const MARKERS: Record<Exclude<SearchLanguage, 'simple'>, ReadonlySet<string>> = {
  english: new Set([
    'the',
    'and',
    'of',
    'to',
    'is',
    'that',
    'it',
    'for',
    'you',
    'with',
    'are',
    'on',
    'this',
    'be',
    'your',
    'can',
    'we',
    'will',
    'have',
    'not',
    'or',
    'from',
    'by',
    'our',
    'at',
  ]),
  german: new Set([
    'der',
    'und',
    'das',
    'ist',
    'nicht',
    'mit',
    'sie',
    'ich',
    'den',
    'auf',
    'ein',
    'eine',
    'zu',
    'für',
    'von',
    'sich',
    'dem',
    'auch',
    'ihre',
    'ihr',
    'wir',
    'bei',
    'oder',
    'werden',
    'wird',
  ]),
  french: new Set([
    'le',
    'les',
    'et',
    'est',
    'des',
    'une',
    'pour',
    'dans',
    'qui',
    'pas',
    'sur',
    'vous',
    'nous',
    'avec',
    'au',
    'ce',
    'sont',
    'par',
    'plus',
    'leur',
    'être',
    'votre',
    'vos',
    'aux',
    'cette',
  ]),
  spanish: new Set([
    'el',
    'los',
    'las',
    'y',
    'es',
    'pero',
    'sus',
    'ya',
    'usted',
    'muy',
    'también',
    'hay',
    'cuando',
    'puede',
    'nuestro',
    'sin',
    'una',
    'con',
    'al',
    'como',
    'más',
    'nuestra',
    'nuestros',
    'desde',
    'hasta',
  ]),
  italian: new Set([
    'gli',
    'della',
    'che',
    'è',
    'per',
    'sono',
    'alla',
    'nel',
    'più',
    'anche',
    'questo',
    'dei',
    'delle',
    'essere',
    'di',
    'nella',
    'degli',
    'ci',
    'può',
    'vostro',
    'tutti',
    'sul',
    'alle',
    'dal',
    'nei',
  ]),
  portuguese: new Set([
    'não',
    'uma',
    'com',
    'em',
    'ao',
    'você',
    'são',
    'seu',
    'sua',
    'mais',
    'pelo',
    'pela',
    'também',
    'já',
    'seus',
    'pode',
    'suas',
    'nossa',
    'nosso',
    'às',
    'aos',
    'até',
    'isso',
    'os',
    'é',
  ]),
  dutch: new Set([
    'het',
    'een',
    'van',
    'dat',
    'niet',
    'op',
    'voor',
    'met',
    'zijn',
    'ook',
    'aan',
    'maar',
    'om',
    'bij',
    'wordt',
    'naar',
    'uw',
    'kunt',
    'worden',
    'wij',
    'deze',
    'heeft',
    'geen',
    'onze',
    'hun',
  ]),
};

/** Below this many marker words a text is too short to tell: it is indexed without stemming. */
const MIN_MARKERS = 2;

/**
 * The language of a piece, from how many of each language's function words it uses. A piece is
 * indexed once, in its own language; a tie or too few markers gives `simple` (exact words, no
 * stemming), which still matches the same words in any question.
 */
export function detectLanguage(text: string): SearchLanguage {
  const counts = new Map<SearchLanguage, number>();
  for (const word of text.toLowerCase().match(/\p{L}+/gu) ?? []) {
    for (const [language, markers] of Object.entries(MARKERS) as Array<[SearchLanguage, ReadonlySet<string>]>) {
      if (markers.has(word)) counts.set(language, (counts.get(language) ?? 0) + 1);
    }
  }
  const [first, second] = [...counts].sort((a, b) => b[1] - a[1]);
  if (!first || first[1] < MIN_MARKERS || (second && second[1] === first[1])) return 'simple';
  return first[0];
}
