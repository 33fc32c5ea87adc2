import { contactErasureConsumer } from '@svc/messaging';
import { ErasureService } from './erasure.service';

/** `contact.erased` from contacts-api: the customer's personal data leaves the chat's records. */
export const ErasureConsumer = contactErasureConsumer(ErasureService, 'conversations', (erasure, accountId, svcId) =>
  erasure.erase(accountId, svcId),
);
