import { keyOf, words } from './analyzer';
import { SearchLanguage } from './language';

/** Words of a piece a matching passage holds at most; a shorter text is its own passage. */
const PASSAGE_WORDS = 50;

/** A sentence of a piece's text, with the keys of its words and its length in words. */
export interface Sentence {
  text: string;
  keys: string[];
  length: number;
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
export function sentencesOf(text: string, language: SearchLanguage, held: (key: string) => string | undefined = (key) => key): Sentence[] {
  const split = wordCount(text) <= PASSAGE_WORDS ? [text.trim()] : text.split(/(?<=[.!?;:])\s+/);
  return split.map((sentence) => ({
    text: sentence,
    keys: words(sentence).flatMap((w) => held(keyOf(w, language)) ?? []),
    length: wordCount(sentence),
  }));
}

/** The sentences holding the most of `keys`, in their order, up to PASSAGE_WORDS (`…` where some are left out between). */
export function bestSentences(sentences: readonly Sentence[], keys: ReadonlySet<string>): string {
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
