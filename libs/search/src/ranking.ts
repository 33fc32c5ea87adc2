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

/** A question the team taught: the piece that answers it, or null for "no piece answers this". */
export interface TaughtQuestion {
  id: string;
  question: string;
  /** The language it was asked in (a "no piece answers this" is indexed in it). */
  lang: SearchLanguage;
  external_ref: string | null;
}

/** The external_ref under which a "no piece answers this" is held: no piece's can begin with a NUL. */
const noneRef = (id: string) => `\u0000none:${id}`;

/** One account's pieces, per language, trusted or nothing. See docs/adr/009-knowledge-search-in-memory.md */
export class AccountIndex {
  private readonly byRef = new Map<string, Doc & { language: LanguageIndex }>();
  /** Database id → external_ref: a deleted piece is known by its id only. */
  private readonly refs = new Map<string, string>();
  private readonly languages = new Map<SearchLanguage, LanguageIndex>();
  /** What the team taught, by id; a question taught for a piece not held yet waits for it. */
  private readonly taught = new Map<string, TaughtQuestion>();

  constructor(private readonly tuning: Tuning = TUNING) {}

  /** The pieces held. */
  get size(): number {
    let nones = 0;
    for (const taught of this.taught.values()) if (taught.external_ref === null) nones += 1;
    return this.byRef.size - nones;
  }

  /** Adds a piece, or replaces the one with its external_ref (unless it is the same version). */
  upsert(piece: IndexedPiece): void {
    const held = this.byRef.get(piece.external_ref)?.piece;
    if (held && piece.version !== undefined && held.id === piece.id && held.version === piece.version) return;
    this.index(piece);
  }

  /**
   * From now on a question like `taught` is answered from its piece (its words count for the piece as
   * heading words do) or, taught with no piece, by nothing. Replaces what was taught under its id.
   */
  teach(taught: TaughtQuestion): void {
    this.unteach(taught.id);
    this.taught.set(taught.id, taught);
    if (taught.external_ref === null) {
      const { id, question, lang } = taught;
      this.index({ id: `taught:${id}`, external_ref: noneRef(id), heading: question, text: question, url: null, lang, none: true });
    } else this.reindex(taught.external_ref);
  }

  /** Forgets what was taught under `id`. */
  unteach(id: string): void {
    const taught = this.taught.get(id);
    if (!taught) return;
    this.taught.delete(id);
    if (taught.external_ref === null) this.remove(noneRef(id));
    else this.reindex(taught.external_ref);
  }

  /** The piece `ref` indexed again with what is taught for it now. */
  private reindex(ref: string): void {
    const held = this.byRef.get(ref)?.piece;
    if (held) this.index(held);
  }

  private index(piece: IndexedPiece): void {
    const questions = piece.none
      ? []
      : [...this.taught.values()].filter((t) => t.external_ref === piece.external_ref).map((t) => t.question);
    this.remove(piece.external_ref);
    let language = this.languages.get(piece.lang);
    if (!language) this.languages.set(piece.lang, (language = new LanguageIndex(piece.lang, this.tuning)));
    this.byRef.set(piece.external_ref, Object.assign(language.add({ ...piece, questions }), { language }));
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
    // The team taught that no piece answers a question like this one.
    if (best?.doc.piece.none) return [];
    const rival = candidates.find((c) => c !== best && c.language === best?.language && !c.doc.piece.none);
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
    return candidates
      .filter((c) => !c.doc.piece.none)
      .slice(0, limit)
      .map((c) => ({
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
