import type { ChatCitation, InboxMessage, KnowledgeListResponseDto, TaughtItem, TaughtPage } from '@svc/contracts';
import { useEffect, useId, useRef, useState } from 'react';
import { api, query } from '../api';
import { ErrorNote, RunButton, SubmitButton, Table, useAction, useFormAction, when } from '../ui';

/** The select's value for "No piece answers this" (no external_ref is empty). */
const NO_PIECE = '';
const NO_PIECE_LABEL = 'No piece answers this';
/** A taught question is at most this many characters (Unicode code points): a longer message is taught by its start. */
const QUESTION_MAX = 1000;

/** Every piece of the account, page by page (at most 5,000), for the choice of the one that answers. */
async function allPieces(): Promise<Array<{ external_ref: string; heading: string }>> {
  const pieces: Array<{ external_ref: string; heading: string }> = [];
  let after: string | null = null;
  for (;;) {
    const page: KnowledgeListResponseDto = await api<KnowledgeListResponseDto>('GET', `/knowledge${query({ after, limit: 200 })}`);
    pieces.push(...page.items.map(({ external_ref, heading }) => ({ external_ref, heading })));
    if (!page.more) return pieces;
    after = page.next_after ?? null;
  }
}

/**
 * "Teach" on a customer's message: a dialog to choose the piece that answers it (the one the
 * assistant cited, if any, chosen first) or "No piece answers this". From then on the assistant
 * answers that question and its paraphrases so.
 */
export function TeachButton({
  question,
  questionId,
  lang,
  cited,
}: {
  question: string;
  /** The id of the element showing the question: the button's description. */
  questionId: string;
  lang: string;
  cited: ChatCitation | null;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const [opened, setOpened] = useState(false);
  const [pieces, setPieces] = useState<Array<{ external_ref: string; heading: string }> | undefined>(undefined);
  const [choice, setChoice] = useState<string>(cited?.external_ref ?? NO_PIECE);
  const [taught, setTaught] = useState<TaughtItem | undefined>(undefined);
  const open = useAction(async () => {
    setChoice(cited?.external_ref ?? NO_PIECE);
    setOpened(true);
    dialog.current?.showModal();
    setPieces(await allPieces());
  });
  const teach = useFormAction(async () => {
    const text = [...question].slice(0, QUESTION_MAX).join('');
    setTaught(await api<TaughtItem>('POST', '/taught', { question: text, lang, external_ref: choice === NO_PIECE ? null : choice }));
    dialog.current?.close();
  });
  return (
    <>
      <button type="button" onClick={() => void open.run()} aria-describedby={questionId}>
        Teach
      </button>
      {taught && (
        <p role="status" className="note">
          Taught: {taught.external_ref === null ? 'no piece answers this question.' : `answered from ${taught.external_ref}.`}
        </p>
      )}
      <dialog ref={dialog} aria-labelledby={titleId} className="teach" onClose={() => setOpened(false)}>
        <form onSubmit={teach.onSubmit} className="stack">
          <h2 id={titleId}>Teach the assistant</h2>
          <p>When a customer asks {opened && <q>{question}</q>} or something like it, answer from:</p>
          <label>
            Piece
            <select value={choice} onChange={(e) => setChoice(e.target.value)} disabled={!pieces}>
              <option value={NO_PIECE}>{NO_PIECE_LABEL}</option>
              {pieces?.map((piece) => (
                <option key={piece.external_ref} value={piece.external_ref}>
                  {piece.heading} ({piece.external_ref})
                </option>
              ))}
            </select>
          </label>
          <ErrorNote error={open.error ?? teach.error} />
          <div className="row">
            <SubmitButton pending={teach.pending || !pieces}>Teach</SubmitButton>
            <button type="button" onClick={() => dialog.current?.close()}>
              Cancel
            </button>
          </div>
        </form>
      </dialog>
    </>
  );
}

/** The Knowledge page's list of what the team taught, newest first, each with Remove. */
export function TaughtAnswers() {
  const [items, setItems] = useState<TaughtItem[]>([]);
  const [next, setNext] = useState<{ after: number | null; more: boolean }>({ after: null, more: false });
  const [removed, setRemoved] = useState<string | undefined>(undefined);
  const page = useAction(async (after: number | null) => {
    const found = await api<TaughtPage>('GET', `/taught${query({ after, limit: 50 })}`);
    setItems((previous) => (after ? [...previous, ...found.items] : found.items));
    setNext({ after: found.next_after, more: found.more });
  });
  const remove = useAction(async (item: TaughtItem) => {
    await api('DELETE', `/taught/${item.id}`);
    setItems((previous) => previous.filter((i) => i.id !== item.id));
    setRemoved(item.question);
  });
  useEffect(() => {
    void page.run(null);
  }, []);
  return (
    <section aria-labelledby="taught">
      <h2 id="taught">Taught answers</h2>
      <p className="note">What the team taught from conversations: the assistant answers these questions, and ones like them, so.</p>
      <ErrorNote error={page.error ?? remove.error} />
      {removed !== undefined && <p role="status">Removed “{removed}”.</p>}
      <Table
        caption="Taught questions, newest first"
        rows={page.pending && items.length === 0 ? undefined : items}
        empty="Nothing taught yet: use Teach on a customer's message in a conversation."
        columns={[
          ['Question', (item) => item.question],
          ['Answered from', (item) => item.external_ref ?? NO_PIECE_LABEL],
          ['Taught', (item) => when(item.created_at)],
          [
            '',
            (item) => (
              <>
                <button
                  type="button"
                  onClick={() => void remove.run(item)}
                  disabled={remove.pending}
                  aria-describedby={`taught-${item.id}`}
                >
                  Remove
                </button>
                <span id={`taught-${item.id}`} hidden>
                  {item.question}
                </span>
              </>
            ),
          ],
        ]}
      />
      {next.more && (
        <RunButton run={() => page.run(next.after)} pending={page.pending}>
          Load more
        </RunButton>
      )}
    </section>
  );
}

/** The piece the assistant's answer to the customer's message `index` cited, if it answered from one. */
export function citedAfter(messages: readonly InboxMessage[], index: number): ChatCitation | null {
  for (const message of messages.slice(index + 1)) {
    if (message.author === 'customer') return null;
    if (message.author === 'assistant') return message.cited_piece;
  }
  return null;
}
