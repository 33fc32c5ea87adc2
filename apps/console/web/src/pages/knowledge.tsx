import type { KnowledgeListResponseDto, KnowledgePieceDto } from '@svc/contracts';
import { useEffect, useState } from 'react';
import { api, query } from '../api';
import { ErrorNote, Field, Page, RunButton, SubmitButton, Table, useAction, useFormAction, when } from '../ui';
import { TaughtAnswers } from './teach';

/** What the assistant would answer (`POST /internal/chat/assistant/preview` on the chat). */
interface Preview {
  answer: string;
  cited_piece: { external_ref: string; heading: string; url: string | null } | null;
}

function AskAsCustomer() {
  const [question, setQuestion] = useState('');
  const [preview, setPreview] = useState<Preview | undefined>(undefined);
  const ask = useFormAction(async () => {
    setPreview(await api<Preview>('POST', '/assistant/preview', { question }));
  });
  return (
    <section aria-labelledby="ask">
      <h2 id="ask">Ask as a customer</h2>
      <form onSubmit={ask.onSubmit} className="row">
        <Field label="Question" value={question} onChange={setQuestion} required maxLength={4000} size={50} />
        <SubmitButton pending={ask.pending}>Ask</SubmitButton>
      </form>
      <ErrorNote error={ask.error} />
      {preview && (
        <div role="status" className="preview">
          <p>
            <strong>The assistant would answer:</strong> {preview.answer}
          </p>
          <p>
            {preview.cited_piece
              ? `Citing “${preview.cited_piece.heading}” (${preview.cited_piece.external_ref})`
              : 'No piece matches: it would offer a person.'}
          </p>
        </div>
      )}
    </section>
  );
}

/** The account's knowledge pieces (written through the API), with "ask as a customer" and what the team taught. */
export default function Knowledge() {
  const [items, setItems] = useState<KnowledgePieceDto[]>([]);
  const [next, setNext] = useState<{ after: string | null; more: boolean }>({ after: null, more: false });
  const page = useAction(async (after: string | null) => {
    const found = await api<KnowledgeListResponseDto>('GET', `/knowledge${query({ after, limit: 100 })}`);
    setItems((previous) => (after ? [...previous, ...found.items] : found.items));
    setNext({ after: found.next_after ?? null, more: found.more ?? false });
  });
  useEffect(() => {
    void page.run(null);
  }, []);
  return (
    <Page title="Knowledge">
      <AskAsCustomer />
      <h2>Pieces</h2>
      <ErrorNote error={page.error} />
      <Table
        caption="Knowledge pieces, by reference"
        rows={page.pending && items.length === 0 ? undefined : items}
        empty="No pieces yet: the business's system writes them with `PUT /api/v1/knowledge/{ref}`."
        rowKey={(piece) => piece.external_ref}
        columns={[
          ['Reference', (piece) => (piece.url ? <a href={piece.url}>{piece.external_ref}</a> : piece.external_ref)],
          ['Heading', (piece) => piece.heading],
          ['Text', (piece) => piece.text, 'clip'],
          ['Updated', (piece) => when(piece.updated_at)],
        ]}
      />
      {next.more && (
        <RunButton run={() => page.run(next.after)} pending={page.pending}>
          Load more
        </RunButton>
      )}
      <TaughtAnswers />
    </Page>
  );
}
