import { KnowledgeSearchResult } from '@svc/contracts';
import { words } from './analyzer';
import { SearchLanguage } from './language';
import { bestSentences } from './passages';
import { Doc, IndexedPiece, LanguageIndex } from './postings';
import { Asked, QueryTerm, questionTerms, readQuestion } from './query';
import { Tuning, TUNING } from './tuning';

/** Shares of the question matched that count as the same. */
const TIE = 0.005;
/** Share of their heading keys (passages' words) two pieces hold in common from which they are one subject (answer alike). */
const SAME_SUBJECT = 0.5;

/** Jaccard overlap of two sets. */
function overlap(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  let common = 0;
  for (const key of a) if (b.has(key)) common += 1;
  const union = a.size + b.size - common;
  return union === 0 ? 1 : common / union;
}

interface Candidate {
  doc: Doc;
  language: LanguageIndex;
  score: number;
  matched: number;
  terms: QueryTerm[];
}

/** One account's pieces, per language, trusted or nothing. See docs/adr/009-knowledge-search-in-memory.md */
export class AccountIndex {
  private readonly byRef = new Map<string, Doc & { language: LanguageIndex }>();
  /** Database id → external_ref: a deleted piece is known by its id only. */
  private readonly refs = new Map<string, string>();
  private readonly languages = new Map<SearchLanguage, LanguageIndex>();

  constructor(private readonly tuning: Tuning = TUNING) {}

  get size(): number {
    return this.byRef.size;
  }

  /** Adds a piece, or replaces the one with its external_ref (unless it is the same version). */
  upsert(piece: IndexedPiece): void {
    const held = this.byRef.get(piece.external_ref)?.piece;
    if (held && piece.version !== undefined && held.id === piece.id && held.version === piece.version) return;
    this.remove(piece.external_ref);
    let language = this.languages.get(piece.lang);
    if (!language) this.languages.set(piece.lang, (language = new LanguageIndex(piece.lang, this.tuning)));
    this.byRef.set(piece.external_ref, Object.assign(language.add(piece), { language }));
    this.refs.set(piece.id, piece.external_ref);
  }

  remove(ref: string): void {
    const doc = this.byRef.get(ref);
    if (!doc) return;
    doc.language.remove(doc);
    this.byRef.delete(ref);
    this.refs.delete(doc.piece.id);
    if (doc.language.count === 0) this.languages.delete(doc.language.language);
  }

  /** Removes the piece with this database id, if the index holds it. */
  removeId(id: string): void {
    const ref = this.refs.get(id);
    if (ref !== undefined) this.remove(ref);
  }

  /** The trusted pieces for a question, best first, each with its matching passage and its share of the question matched. */
  search(question: string, visitor: SearchLanguage, limit: number): KnowledgeSearchResult[] {
    const asked = readQuestion(question, visitor);
    const candidates: Candidate[] = [];
    for (const language of this.languages.values()) {
      const native = language.language === visitor;
      candidates.push(...this.rank(language, asked, native));
    }
    candidates.sort((a, b) => b.score - a.score || (a.doc.piece.external_ref < b.doc.piece.external_ref ? -1 : 1));
    const [best] = candidates;
    const rival = candidates.find((c) => c !== best && c.language === best?.language);
    const passages = new Map<Candidate, string>();
    const passageOf = (c: Candidate) => {
      let found = passages.get(c);
      if (found === undefined)
        passages.set(c, (found = bestSentences((c.doc.sentences ??= c.language.sentencesOf(c.doc.piece.text)), matchedKeys(c))));
      return found;
    };
    // Two pieces matching the same share of the question, with near scores: the question does not tell them apart,
    // unless they are versions of one subject (`Alpa tent: rental`, `Brisk tent: rental`) or answer alike.
    if (best && rival && best.matched - rival.matched < TIE && rival.score >= best.score * this.tuning.tieRatio) {
      const alike = (a: string, b: string) => overlap(new Set(words(a)), new Set(words(b))) >= SAME_SUBJECT;
      if (overlap(best.doc.subject, rival.doc.subject) < SAME_SUBJECT && !alike(passageOf(best), passageOf(rival))) return [];
    }
    return candidates.slice(0, limit).map((c) => ({
      external_ref: c.doc.piece.external_ref,
      heading: c.doc.piece.heading,
      url: c.doc.piece.url,
      passage: passageOf(c),
      score: Math.min(0.999, Math.round(c.matched * 1000) / 1000),
    }));
  }

  /** Every piece of `language` holding a question word or concept, with its BM25 score and the share of the question it matches. */
  private rank(language: LanguageIndex, asked: Asked, native: boolean): Candidate[] {
    const terms = questionTerms(language, asked, native);
    const total = terms.reduce((sum, term) => sum + term.weight, 0);
    if (total === 0) return [];
    const { k1, minCoverage } = this.tuning;
    language.sums();
    const norms = language.normalised(k1, this.tuning.b);
    const { score, matched, termScore, termFactor } = language;
    const touched: number[] = [];
    for (const term of terms) {
      // A term counts once per piece: by the alternative (word, correction, synonym) that scores best there.
      const termTouched: number[] = [];
      for (const { posting, factor } of term.alternatives) {
        const { slots, tf } = posting;
        const weight = factor * language.idf(slots.length) * (k1 + 1);
        for (let i = 0; i < slots.length; i += 1) {
          const slot = slots[i] as number;
          const frequency = tf[i] as number;
          const value = (weight * frequency) / (frequency + (norms[slot] as number));
          if (termScore[slot] === 0) termTouched.push(slot);
          if (value > (termScore[slot] as number)) {
            termScore[slot] = value;
            termFactor[slot] = factor;
          }
        }
      }
      for (const slot of termTouched) {
        if (score[slot] === 0) touched.push(slot);
        score[slot] = (score[slot] as number) + (termScore[slot] as number);
        matched[slot] = (matched[slot] as number) + (term.weight * (termFactor[slot] as number)) / total;
        termScore[slot] = 0;
        termFactor[slot] = 0;
      }
    }
    const trusted: Candidate[] = [];
    for (const slot of touched) {
      if ((matched[slot] as number) >= minCoverage) {
        trusted.push({ doc: language.slots[slot] as Doc, language, score: score[slot] as number, matched: matched[slot] as number, terms });
      }
      score[slot] = 0;
      matched[slot] = 0;
    }
    return trusted;
  }
}

/** The keys by which a piece matched the question's terms. */
function matchedKeys(candidate: Candidate): Set<string> {
  const held = new Set(candidate.doc.postings);
  return new Set(candidate.terms.flatMap((term) => term.alternatives.filter((a) => held.has(a.posting)).map((a) => a.posting.key)));
}
