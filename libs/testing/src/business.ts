import { Stack } from './stack';

export interface TestPiece {
  heading: string;
  text: string;
  url?: string;
}

/** The sample shop's knowledge the chat suites ask about: returns (with its page) and shipping. */
export const SHOP_KNOWLEDGE = {
  returns: {
    heading: 'Returns and refunds',
    text: 'You can return any item within 30 days of delivery for a full refund. Print the return label from your account.',
    url: 'https://shop.example/returns',
  },
  shipping: { heading: 'Shipping times', text: 'Orders ship within two working days. Delivery in Germany takes three to five days.' },
} satisfies Record<string, TestPiece>;

/** Puts each piece (by its external ref) as the business does, `PUT /knowledge/{ref}`, in turn; throws unless each is created. */
export async function putPieces(stack: Stack, pieces: Record<string, TestPiece>): Promise<void> {
  for (const [ref, piece] of Object.entries(pieces)) {
    const response = await stack.call(`/knowledge/${ref}`, { method: 'PUT', json: piece });
    if (response.status !== 201) throw new Error(`PUT /knowledge/${ref} answered ${response.status}: ${await response.text()}`);
  }
}

/** The sample customer the suites write (and an erasure must leave no trace of). */
export const ADA = { name: 'Ada Lovelace', email: 'ada@example.com', phone: '+447700900123' };

/** A consent as a business's website form sends it with a customer (`overrides` on top). */
export const sampleConsent = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  purpose: 'future_email',
  text: 'Yes, email me offers and news.',
  given_at: '2026-11-21T12:04:05.123456+02:00',
  source: 'website_form',
  ...overrides,
});

/** Writes a new customer as the business does, `PUT /contacts/{ref}` (`key`: the account's); throws unless created; answers its svc_id. */
export async function putCustomer(stack: Stack, ref: string, customer: object, key?: string): Promise<number> {
  const response = await stack.call(`/contacts/${ref}`, { method: 'PUT', key, json: customer });
  if (response.status !== 201) throw new Error(`PUT /contacts/${ref} answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { svc_id: number }).svc_id;
}
