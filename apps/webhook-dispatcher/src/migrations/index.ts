import { CreateWebhooks1763900000000 } from './1763900000000-CreateWebhooks';
import { DeliveriesByEndpoint1763900000001 } from './1763900000001-DeliveriesByEndpoint';
import { ErasureAndAccountCap1763900000002 } from './1763900000002-ErasureAndAccountCap';
import { EndpointManagement1763900000003 } from './1763900000003-EndpointManagement';
import { DeliveryTraceparent1763900000004 } from './1763900000004-DeliveryTraceparent';

/** Schema `webhooks`: endpoints, deliveries, attempts. Owned by webhook-dispatcher. */
export const WEBHOOKS_SCHEMA = 'webhooks';
export const WEBHOOKS_MIGRATIONS = [
  CreateWebhooks1763900000000,
  DeliveriesByEndpoint1763900000001,
  ErasureAndAccountCap1763900000002,
  EndpointManagement1763900000003,
  DeliveryTraceparent1763900000004,
];
