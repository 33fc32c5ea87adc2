import { Inject, Injectable } from '@nestjs/common';
import { GatewayContext, ListTaughtQueryDto, TAUGHT_LIMITS, TaughtItem, TaughtPage, TeachAssistantDto, toPage } from '@svc/contracts';
import { ApiError } from '@svc/platform';
import { detectLanguage, fold, SEARCH_LANGUAGES, SearchLanguage, words } from '@svc/search';
import { SearchIndex } from '../search/search-index';
import { TaughtRepository } from './taught.repository';

/** The tag stored for a question sent without one (`und`, undetermined, for a language without a stemmer). */
const TAG_OF: Record<SearchLanguage, string> = {
  english: 'en',
  german: 'de',
  french: 'fr',
  spanish: 'es',
  italian: 'it',
  portuguese: 'pt',
  dutch: 'nl',
  simple: 'und',
};

/** The same question, however cased, accented, spaced or punctuated: its words, folded. */
export const questionKey = (question: string): string => words(question).map(fold).join(' ');

/** Who taught: a member in the console (`console:<member id>` calls) or an agent's API key (MCP). */
export function teacherOf(caller: GatewayContext): string {
  const member = /^console:(.+)$/.exec(caller.keyId);
  return member ? `team:${member[1]}` : `agent:${caller.keyId}`;
}

/** What the team taught the assistant; the replica that wrote it answers from it at once (the others on NOTIFY). */
@Injectable()
export class TaughtService {
  constructor(
    private readonly taught: TaughtRepository,
    @Inject(SearchIndex) private readonly index: Pick<SearchIndex, 'refreshTaught'>,
  ) {}

  async teach(caller: GatewayContext, body: TeachAssistantDto): Promise<TaughtItem> {
    const accountId = caller.account.id;
    const outcome = await this.taught.teach(accountId, {
      question: body.question,
      key: questionKey(body.question),
      lang: body.lang ?? TAG_OF[await this.languageOf(accountId, body.question)],
      external_ref: body.external_ref,
      created_by: teacherOf(caller),
    });
    if (outcome === 'no_piece')
      throw new ApiError('not_found', `There is no knowledge piece with external_ref ${JSON.stringify(body.external_ref)}.`);
    if (outcome === 'full') {
      const max = TAUGHT_LIMITS.perAccount.toLocaleString('en');
      throw new ApiError('limit_exceeded', `An account holds at most ${max} taught questions; remove some first.`);
    }
    await this.index.refreshTaught(accountId);
    return outcome.item;
  }

  /** A question's language by its words, or when they do not tell (short questions), the language of most of the pieces. */
  private async languageOf(accountId: string, question: string): Promise<SearchLanguage> {
    const detected = detectLanguage(question);
    if (detected !== 'simple') return detected;
    const main = await this.taught.mainLanguage(accountId);
    return SEARCH_LANGUAGES.find((language) => language === main) ?? 'simple';
  }

  async list(accountId: string, query: ListTaughtQueryDto): Promise<TaughtPage> {
    const limit = query.limit ?? TAUGHT_LIMITS.pageDefault;
    const rows = await this.taught.list(accountId, query.after, limit + 1);
    return toPage('items', rows, { limit, after: query.after ?? null, cursor: (row) => row.id, items: (page) => page });
  }

  async remove(accountId: string, id: number): Promise<void> {
    if (!(await this.taught.remove(accountId, id))) throw new ApiError('not_found', `There is no taught question with id ${id}.`);
    await this.index.refreshTaught(accountId);
  }
}
