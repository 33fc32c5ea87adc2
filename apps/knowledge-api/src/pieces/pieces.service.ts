import { Inject, Injectable } from '@nestjs/common';
import {
  BulkUpsertKnowledgeResponseDto,
  INVALID_PARAMETERS,
  KNOWLEDGE_LIMITS,
  KnowledgeBulkItemDto,
  KnowledgeListResponseDto,
  KnowledgePieceDto,
  ListKnowledgeQueryDto,
  toPage,
  UpsertKnowledgePieceDto,
} from '@svc/contracts';
import { ApiError } from '@svc/platform';
import { detectLanguage } from '@svc/search';
import { SearchIndex } from '../search/search-index';
import { PieceInput, PiecesRepository, PiecesWriter } from './pieces.repository';

function toInput(ref: string, body: UpsertKnowledgePieceDto): PieceInput {
  return {
    external_ref: ref,
    heading: body.heading,
    text: body.text,
    url: body.url ?? null,
    lang: detectLanguage(`${body.heading}\n${body.text}`),
  };
}

/** Refuses a write that would take the account past its quota; call it inside the account's lock. */
async function checkQuota(writer: PiecesWriter, newPieces: number): Promise<void> {
  if (newPieces === 0) return;
  const held = await writer.count();
  if (held + newPieces > KNOWLEDGE_LIMITS.piecesPerAccount) {
    const max = KNOWLEDGE_LIMITS.piecesPerAccount.toLocaleString('en');
    throw new ApiError(
      'limit_exceeded',
      `An account holds at most ${max} knowledge pieces; it has ${held.toLocaleString('en')} and this call adds ${newPieces}.`,
    );
  }
}

/** A write is searchable here once answered. See docs/adr/009-knowledge-search-in-memory.md */
@Injectable()
export class PiecesService {
  constructor(
    private readonly pieces: PiecesRepository,
    @Inject(SearchIndex) private readonly index: Pick<SearchIndex, 'refresh'>,
  ) {}

  async upsert(accountId: string, ref: string, body: UpsertKnowledgePieceDto): Promise<{ created: boolean; piece: KnowledgePieceDto }> {
    const written = await this.pieces.writeForAccount(accountId, async (writer) => {
      const created = (await writer.existingRefs([ref])).size === 0;
      await checkQuota(writer, created ? 1 : 0);
      const [piece] = await writer.upsert([toInput(ref, body)]);
      await writer.announce([ref], 'upserted');
      return { created, piece: piece as KnowledgePieceDto };
    });
    await this.index.refresh(accountId, [ref]);
    return written;
  }

  /** All or nothing: the items are valid and distinct (the DTO checks), and fit in the quota together. */
  async bulkUpsert(accountId: string, items: KnowledgeBulkItemDto[]): Promise<BulkUpsertKnowledgeResponseDto> {
    const refs = items.map((item) => item.external_ref);
    const response = await this.pieces.writeForAccount(accountId, async (writer) => {
      const existing = await writer.existingRefs(refs);
      const created = items.length - existing.size;
      await checkQuota(writer, created);
      const written = new Map((await writer.upsert(items.map((item) => toInput(item.external_ref, item)))).map((p) => [p.external_ref, p]));
      await writer.announce(refs, 'upserted');
      return { items: refs.map((ref) => written.get(ref) as KnowledgePieceDto), created, updated: existing.size };
    });
    await this.index.refresh(accountId, refs);
    return response;
  }

  async delete(accountId: string, ref: string): Promise<void> {
    await this.pieces.writeForAccount(accountId, async (writer) => {
      if (!(await writer.delete(ref)))
        throw new ApiError('not_found', `There is no knowledge piece with external_ref ${JSON.stringify(ref)}.`);
      await writer.announce([ref], 'deleted');
    });
    await this.index.refresh(accountId, [ref]);
  }

  async list(accountId: string, query: ListKnowledgeQueryDto): Promise<KnowledgeListResponseDto> {
    if (query.external_ref !== undefined) {
      if (query.after !== undefined || query.limit !== undefined) {
        throw new ApiError('invalid_parameter', INVALID_PARAMETERS, [
          { path: 'external_ref', message: 'external_ref looks up one piece and cannot be combined with after or limit' },
        ]);
      }
      const piece = await this.pieces.find(accountId, query.external_ref);
      return { items: piece ? [piece] : [] };
    }
    const limit = query.limit ?? KNOWLEDGE_LIMITS.pageDefault;
    const rows = await this.pieces.list(accountId, query.after, limit + 1);
    return toPage('items', rows, { limit, after: query.after ?? null, cursor: (piece) => piece.external_ref, items: (page) => page });
  }
}
