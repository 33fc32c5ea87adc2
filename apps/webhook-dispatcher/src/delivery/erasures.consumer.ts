import { contactErasureConsumer } from '@svc/messaging';
import { DeliveryService } from './delivery.service';

/** Erasures blank the customer's deliveries; a redelivered one changes nothing more. A malformed one is parked. */
export const ErasuresConsumer = contactErasureConsumer(DeliveryService, 'webhook deliveries', (deliveries, accountId, svcId) =>
  deliveries.eraseContact(accountId, svcId),
);
