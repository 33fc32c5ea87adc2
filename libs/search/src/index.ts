// The knowledge search engine: one account's pieces in memory, per language, and the trusted pieces
// for a question (docs/adr/009-knowledge-search-in-memory.md). Pure: no I/O, no framework.
export { fold, keyOf, words } from './analyzer';
export { detectLanguage, languageOfTag, SEARCH_LANGUAGES } from './language';
export type { SearchLanguage } from './language';
export { passage } from './passages';
export type { IndexedPiece } from './postings';
export { AccountIndex } from './ranking';
export type { TaughtQuestion } from './ranking';
export { TUNING } from './tuning';
export type { Tuning } from './tuning';
