import { AccountIndex, detectLanguage, languageOfTag, TUNING } from '@svc/search';
import type { KnowledgeSearchResult } from '@svc/contracts';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..');
/** The figures `npm run bench:answers` recorded last (bench/README.md). */
const RECORDED = 'bench/results/answers-2026-12-03.json';
/** What a change may cost before this test calls it a fall: two questions in a hundred. */
const MARGIN = 0.02;

interface Business {
  id: string;
  lang: string;
  pieces: Array<{ external_ref: string; heading: string; text: string; url?: string }>;
  questions: Array<{ question: string; answer: string | null }>;
}
interface Tally {
  answerable: number;
  right: number;
  unanswerable: number;
  none: number;
}

/** The chat's rule for the piece to cite, as the built chat has it (tools may not import an app's source). */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { goodMatch } = require(join(ROOT, 'dist/apps/chat/src/assistant/assistant-rules.js')) as {
  goodMatch: (results: readonly KnowledgeSearchResult[]) => KnowledgeSearchResult | undefined;
};

const dir = join(ROOT, 'bench/answers/businesses');
const businesses: Business[] = readdirSync(dir)
  .filter((name) => name.endsWith('.json'))
  .map((name) => JSON.parse(readFileSync(join(dir, name), 'utf8')) as Business);

function indexOf(business: Business): AccountIndex {
  const index = new AccountIndex(TUNING);
  business.pieces.forEach((p, i) =>
    index.upsert({ id: String(i), ...p, url: p.url ?? null, lang: detectLanguage(`${p.heading}\n${p.text}`) }),
  );
  return index;
}

/** The piece the assistant cites for a question of the business (or null). */
const cite = (index: AccountIndex, business: Business, question: string) =>
  goodMatch(index.search(question, languageOfTag(business.lang), 3))?.external_ref ?? null;

function tally(business: Business): Tally {
  const index = indexOf(business);
  const t: Tally = { answerable: 0, right: 0, unanswerable: 0, none: 0 };
  for (const q of business.questions) {
    const cited = cite(index, business, q.question);
    if (q.answer === null) {
      t.unanswerable += 1;
      if (cited === null) t.none += 1;
    } else {
      t.answerable += 1;
      if (cited === q.answer) t.right += 1;
    }
  }
  return t;
}

describe('bench/answers: the shipped tuning does not fall below the recorded figures on the held-out businesses', () => {
  const recorded = JSON.parse(readFileSync(join(ROOT, RECORDED), 'utf8')) as { shipped_tuning: { businesses: Record<string, Tally> } };
  const sum = (tallies: Tally[]) =>
    tallies.reduce(
      (a, b) => ({
        answerable: a.answerable + b.answerable,
        right: a.right + b.right,
        unanswerable: a.unanswerable + b.unanswerable,
        none: a.none + b.none,
      }),
      { answerable: 0, right: 0, unanswerable: 0, none: 0 },
    );
  const now = sum(businesses.map(tally));
  const then = sum(businesses.map((b) => recorded.shipped_tuning.businesses[b.id] as Tally));

  it('asks the same questions as the recorded run', () => {
    expect([now.answerable, now.unanswerable]).toEqual([then.answerable, then.unanswerable]);
  });

  it('right of the answerable and none of the unanswerable, each within the margin of the record', () => {
    expect(now.right / now.answerable).toBeGreaterThanOrEqual(then.right / then.answerable - MARGIN);
    expect(now.none / now.unanswerable).toBeGreaterThanOrEqual(then.none / then.unanswerable - MARGIN);
  });
});

describe("bench/answers' teaching: what is taught never costs another question its answer", () => {
  it.each(businesses.map((b) => [b.id, b] as const))(
    '%s: the misses of every other answerable question taught, each question of the other half answered as before or better',
    (_id, business) => {
      const answerable = business.questions.filter((q) => q.answer !== null);
      const [taught, asked] = [answerable.filter((_, i) => i % 2 === 0), answerable.filter((_, i) => i % 2 === 1)];
      const index = indexOf(business);
      const before = asked.map((q) => cite(index, business, q.question));
      const lang = languageOfTag(business.lang);
      taught
        .filter((q) => cite(index, business, q.question) !== q.answer)
        .forEach((q, i) => index.teach({ id: String(i), question: q.question, lang, external_ref: q.answer }));
      const lost = asked.filter((q, i) => before[i] === q.answer && cite(index, business, q.question) !== q.answer);
      expect(lost.map((q) => q.question)).toEqual([]);
    },
  );
});
