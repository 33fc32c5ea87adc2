/**
 * The assistant's rules as pure functions: when a customer asks for a person, when a search result
 * is good enough to answer from, and the built-in extractive answer.
 */
import { ChatCitation, KnowledgeSearchResult } from '@svc/contracts';

/** Phrases asking for a person, anywhere in a message (en, de, fr, es). */
const ASKING_FOR_PERSON = [
  /\b(talk|speak|chat)\s+(to|with)\s+(a|an|the|some|your)?\s*(real\s+)?(person|human|someone|somebody|agent|representative|operator|staff)\b/i,
  /\b(real|live)\s+(person|human|agent)\b/i,
  /\b(mit\s+)?(einem|einer)\s+(menschen|mitarbeiter(in)?|person)\s+(sprechen|reden)\b/i,
  /\bmit\s+(jemandem|einem\s+menschen)\b/i,
  /\bparler\s+(à|a|avec)\s+(une\s+personne|quelqu'un|quelqu’un|un\s+humain|un\s+conseiller|un\s+agent|un\s+opérateur)\b/i,
  /\bhablar\s+con\s+(una\s+persona|alguien|un\s+humano|un\s+agente|un\s+asesor|un\s+operador)\b/i,
];
/** A single word asking for a person: counts only in a short message ("human", "Agent please"). */
const PERSON_WORDS = /\b(human|person|agent|operator|representative|mensch|mitarbeiter|humain|conseiller|humano|agente|persona)\b/i;
const SHORT_MESSAGE = 40;

/** Whether a customer's message asks for a person instead of the assistant. */
export function asksForPerson(text: string): boolean {
  const trimmed = text.trim();
  if (ASKING_FOR_PERSON.some((pattern) => pattern.test(trimmed))) return true;
  return [...trimmed].length <= SHORT_MESSAGE && PERSON_WORDS.test(trimmed);
}

/**
 * A floor under the best piece's score. knowledge-api returns only the pieces it trusts to answer
 * (its score is the share of the question's weight a piece matches, from 0.5 up), so no result
 * means "I don't know, would you like a person?".
 */
export const GOOD_MATCH_SCORE = 0.05;

/** The piece to answer from, if the best result is a good match. */
export function goodMatch(results: readonly KnowledgeSearchResult[]): KnowledgeSearchResult | undefined {
  const best = results[0];
  return best && best.score >= GOOD_MATCH_SCORE ? best : undefined;
}

/** The question as knowledge-api takes it: at most 1,000 code points. */
export function searchQuestion(text: string, max = 1_000): string {
  const points = [...text.trim()];
  return points.length <= max ? points.join('') : points.slice(0, max).join('');
}

export interface Reply {
  text: string;
  citation: ChatCitation | null;
  offersPerson: boolean;
}

export interface ReplyWords {
  answer_intro: string;
  no_match: string;
  more_at: string;
}

/** The built-in answer: the matching passage of the piece, under its heading, with its link. */
export function extractiveReply(match: KnowledgeSearchResult | undefined, words: ReplyWords): Reply {
  if (!match) return { text: words.no_match, citation: null, offersPerson: true };
  const passage = match.passage.trim() || match.heading;
  const link = match.url ? `\n\n${words.more_at} ${match.url}` : '';
  return {
    text: `${words.answer_intro}\n\n${match.heading}: ${passage}${link}`,
    citation: { external_ref: match.external_ref, heading: match.heading, url: match.url },
    offersPerson: false,
  };
}

/** A writer's reply grounded in the same piece: the citation and the link stay the extractive answer's. */
export function writtenReply(written: string, extractive: Reply, words: ReplyWords): Reply {
  const url = extractive.citation?.url;
  const link = url && !written.includes(url) ? `\n\n${words.more_at} ${url}` : '';
  return { ...extractive, text: `${written.trim()}${link}` };
}
