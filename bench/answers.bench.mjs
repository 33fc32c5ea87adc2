// npm run bench:answers — are the assistant's answers right? Loads the knowledge of
// bench/answers/pieces.json (a bicycle shop, 22 topics in English, German, French and Spanish)
// into a fresh stack through the REST API (gateway → knowledge-api, as a business's sync would),
// then asks every question of bench/answers/questions.json through the assistant's search path:
// knowledge-api's `POST /internal/knowledge/search` in the question's language, with the chat's
// rule for the piece to cite (`goodMatch`, the same the assistant and MCP `search_knowledge` use).
// A question labelled with a topic is answered right when the cited piece is of that topic (in any
// of its languages), wrong when another piece is cited, and missed when none is; a question
// labelled null is handled rightly when no piece is cited ("I don't know, would you like a person?").
// For comparison, the same questions go through MiniSearch (BM25, prefix and fuzzy matching,
// heading boosted) on the same pieces, with the score threshold that does best on this set.
// Needs `npm run build` and PostgreSQL + Redis on 127.0.0.1. Writes bench/results/answers-*.json.
import MiniSearch from 'minisearch';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { benchDatabase, machine, root, stopProcesses, waitReady, writeResult } from './support.mjs';

const require = createRequire(import.meta.url);
const { pieces } = JSON.parse(readFileSync(join(root, 'bench/answers/pieces.json'), 'utf8'));
const { questions } = JSON.parse(readFileSync(join(root, 'bench/answers/questions.json'), 'utf8'));
const topicOf = new Map(pieces.map((p) => [p.external_ref, p.topic]));
const [GATEWAY_PORT, GATEWAY_INTERNAL, KNOWLEDGE_PORT, KNOWLEDGE_INTERNAL] = [3930, 3931, 3932, 3933];
const TARGETS = { right_of_answerable_at_least: 0.85, wrong_of_answerable_at_most: 0.1, none_of_unanswerable_at_least: 0.8 };

/** right / wrong / missed of the answerable questions, none / cited of the others, per language and overall. */
function tally(asked) {
  const count = (rows) => {
    const answerable = rows.filter((r) => r.topic !== null);
    const unanswerable = rows.filter((r) => r.topic === null);
    const share = (n, of) => (of.length === 0 ? null : Math.round((n / of.length) * 1000) / 1000);
    const right = answerable.filter((r) => r.cited_topic === r.topic).length;
    const wrong = answerable.filter((r) => r.cited_topic !== null && r.cited_topic !== r.topic).length;
    const none = unanswerable.filter((r) => r.cited_topic === null).length;
    return {
      answerable: answerable.length,
      right,
      wrong,
      missed: answerable.length - right - wrong,
      unanswerable: unanswerable.length,
      none,
      right_share: share(right, answerable),
      wrong_share: share(wrong, answerable),
      none_share: share(none, unanswerable),
    };
  };
  const languages = [...new Set(asked.map((r) => r.lang))];
  return { ...Object.fromEntries(languages.map((lang) => [lang, count(asked.filter((r) => r.lang === lang))])), all: count(asked) };
}

const met = (all) =>
  all.right_share >= TARGETS.right_of_answerable_at_least &&
  all.wrong_share <= TARGETS.wrong_of_answerable_at_most &&
  all.none_share >= TARGETS.none_of_unanswerable_at_least;

/** MiniSearch on the same pieces: its best result when it scores at least `threshold`. */
function miniSearchAnswers() {
  const index = new MiniSearch({
    fields: ['heading', 'text'],
    storeFields: ['external_ref'],
    idField: 'external_ref',
    searchOptions: { boost: { heading: 3 }, prefix: true, fuzzy: 0.2 },
  });
  index.addAll(pieces);
  const best = questions.map((q) => index.search(q.question)[0]);
  const asked = (threshold) =>
    questions.map((q, i) => ({
      lang: q.lang,
      topic: q.topic,
      cited_topic: best[i] && best[i].score >= threshold ? topicOf.get(best[i].id) : null,
    }));
  // The threshold that cites the most right pieces while leaving at least 80% of the unanswerable unanswered.
  const scores = [...new Set(best.filter(Boolean).map((b) => b.score))].sort((a, b) => a - b);
  let chosen = { threshold: Infinity, all: tally(asked(Infinity)).all };
  for (const threshold of scores) {
    const { all } = tally(asked(threshold));
    if (all.none_share >= TARGETS.none_of_unanswerable_at_least && all.right > chosen.all.right) chosen = { threshold, all };
  }
  return { threshold: Math.round(chosen.threshold * 100) / 100, ...tally(asked(chosen.threshold)) };
}

const { database, env, apiKey, account } = await benchDatabase('warn');
const knowledge = spawn(process.execPath, [join(root, 'dist/apps/knowledge-api/src/main.js')], {
  env: { ...env, PORT: String(KNOWLEDGE_PORT), INTERNAL_PORT: String(KNOWLEDGE_INTERNAL) },
  stdio: ['ignore', 'inherit', 'inherit'],
});
const gateway = spawn(process.execPath, [join(root, 'dist/apps/gateway/src/main.js')], {
  env: {
    ...env,
    PORT: String(GATEWAY_PORT),
    INTERNAL_PORT: String(GATEWAY_INTERNAL),
    KNOWLEDGE_API_URL: `http://127.0.0.1:${KNOWLEDGE_INTERNAL}`,
  },
  stdio: ['ignore', 'inherit', 'inherit'],
});

try {
  await waitReady(`http://127.0.0.1:${KNOWLEDGE_PORT}`);
  await waitReady(`http://127.0.0.1:${GATEWAY_PORT}`);
  for (let i = 0; i < pieces.length; i += 50) {
    const items = pieces
      .slice(i, i + 50)
      .map(({ external_ref, heading, text, url }) => ({ external_ref, heading, text, ...(url ? { url } : {}) }));
    const response = await fetch(`http://127.0.0.1:${GATEWAY_PORT}/api/v1/knowledge/bulk`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ items }),
    });
    if (response.status !== 200) throw new Error(`bulk load answered ${response.status}: ${await response.text()}`);
  }

  const { InternalAuth } = require(join(root, 'dist/libs/platform/src/index.js'));
  const { goodMatch } = require(join(root, 'dist/apps/chat/src/assistant/assistant-rules.js'));
  const context = await InternalAuth.fromEnv('chat', env).sign('knowledge-api', {
    account,
    keyId: 'bench-answers',
    requestId: 'bench-answers',
  });
  const asked = [];
  for (const q of questions) {
    // As the chat's AnswerWriter asks: the question in the conversation's language, three results.
    const response = await fetch(`http://127.0.0.1:${KNOWLEDGE_INTERNAL}/internal/knowledge/search`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-svc-context': context },
      body: JSON.stringify({ question: q.question, lang: q.lang, limit: 3 }),
    });
    const body = await response.json();
    if (response.status !== 200) throw new Error(`search answered ${response.status}: ${JSON.stringify(body)}`);
    const cited = goodMatch(body.results);
    asked.push({
      lang: q.lang,
      kind: q.kind,
      question: q.question,
      topic: q.topic,
      cited: cited?.external_ref ?? null,
      cited_topic: cited ? topicOf.get(cited.external_ref) : null,
      score: cited?.score ?? null,
    });
  }

  const product = tally(asked);
  const library = miniSearchAnswers();
  const result = {
    benchmark: 'answers: the piece the assistant cites for each question of bench/answers, against its label',
    at: new Date().toISOString(),
    machine: machine({}),
    set: { pieces: pieces.length, topics: new Set(pieces.map((p) => p.topic)).size, questions: questions.length },
    targets: TARGETS,
    product,
    met: met(product.all),
    minisearch_same_pieces: library,
    questions: asked,
  };
  const file = writeResult('answers', result.at, result);
  const row = (t) => ({
    'right % (answerable)': Math.round(t.right_share * 100),
    'wrong %': Math.round(t.wrong_share * 100),
    'none % (unanswerable)': Math.round(t.none_share * 100),
    answerable: t.answerable,
    unanswerable: t.unanswerable,
  });
  console.log('The assistant (knowledge-api search, chat rule):');
  console.table(Object.fromEntries(Object.entries(product).map(([lang, t]) => [lang, row(t)])));
  console.log(`MiniSearch on the same pieces, best threshold for this set (${library.threshold}):`);
  console.table({ all: row(library.all) });
  for (const r of asked.filter((r) => r.cited_topic !== r.topic)) {
    console.log(
      `${r.topic === null ? 'cited  ' : r.cited ? 'wrong  ' : 'missed '} ${r.lang} ${JSON.stringify(r.question)} → ${r.cited ?? '-'}`,
    );
  }
  console.log(`written to ${file}`);
  if (!result.met) process.exitCode = 1;
} finally {
  await stopProcesses([gateway, knowledge]);
  await database.drop();
}
