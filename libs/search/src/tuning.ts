/** The settings of the ranking and of the trust in a match; `TUNING` holds the calibrated ones. */
export interface Tuning {
  /** A heading word counts this many times a text word. */
  headingWeight: number;
  /** A word of a question the team taught a piece answers counts this many times a text word. */
  taughtWeight: number;
  /** BM25's term frequency saturation and length normalisation. */
  k1: number;
  b: number;
  /** Share of the question's weight the best piece must match to be trusted. */
  minCoverage: number;
  /**
   * An unknown word (no piece holds it, nothing close), outside the language's frequent words, weighs
   * this many times a word one piece holds.
   */
  unknownWeight: number;
  /** The rank in the language's word frequencies from which an unknown word starts to weigh more than `unknownFloor` (background.ts). */
  commonRank: number;
  /** What an unknown word among the language's `commonRank` most frequent weighs, as a share of `unknownWeight`. */
  unknownFloor: number;
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

/** Chosen by `npm run bench:answers` on every business of bench/answers (the grid and the leave-one-out figures: bench/README.md). */
export const TUNING: Tuning = {
  headingWeight: 3,
  taughtWeight: 3,
  k1: 1.2,
  b: 0.75,
  minCoverage: 0.5,
  unknownWeight: 1.3,
  commonRank: 1000,
  unknownFloor: 0.3,
  unknownNameWeight: 1.35,
  unknownNumberWeight: 0.35,
  correctedFactor: 0.85,
  synonymFactor: 0.8,
  conceptWeight: 0.5,
  tieRatio: 0.85,
};
