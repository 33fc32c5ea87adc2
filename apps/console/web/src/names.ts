import type { EventContact } from '@svc/contracts';

/** How the team sees a customer: their name, else their email or phone, else "Visitor {svc_id}". */
export function customerName(contact: EventContact | null | undefined): string {
  if (!contact) return 'Anonymous visitor';
  return contact.name || contact.email || contact.phone || `Visitor ${contact.svc_id}`;
}
