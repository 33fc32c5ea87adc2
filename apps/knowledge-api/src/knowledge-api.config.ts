import { parseSearchShard } from '@svc/contracts';
import { messagingConfigSpec, outboxConfigSpec } from '@svc/messaging';
import { databaseConfigSpec } from '@svc/persistence';
import { Config, serviceConfigSpec } from '@svc/platform';
import { makeValidator } from 'envalid';

/** `index/count` of a search shard, as written (read with parseSearchShard). */
const searchShard = makeValidator<string>((value) => {
  parseSearchShard(value);
  return value.trim();
});

export const knowledgeApiConfigSpec = {
  ...serviceConfigSpec('knowledge-api', 'Port of knowledge-api (reached through the gateway; the assistant calls its search directly).'),
  ...messagingConfigSpec,
  ...outboxConfigSpec,
  ...databaseConfigSpec('knowledge-api owns schema `knowledge` (pieces; it LISTENs there for their changes)'),
  SEARCH_SHARD: searchShard({
    default: '0/1',
    desc: "`index/count`: this replica's search index holds the accounts of search shard `index` of `count` (`0/1`: every account); a search for another shard's account is refused with 503. The chat's KNOWLEDGE_SEARCH_URLS lists one URL per shard. See docs/adr/018-search-shards.md.",
  }),
};

export type KnowledgeApiConfig = Config<typeof knowledgeApiConfigSpec>;
