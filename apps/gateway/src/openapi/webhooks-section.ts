import { EVENT_KINDS, eventSchemaName, exampleEvent } from '@svc/contracts';
import { WEBHOOK_HEADERS } from '@svc/webhook-signing';

/** What each delivery header carries (a header added to WEBHOOK_HEADERS must be described here: the type says so). */
const HEADER_DOCS: Record<keyof typeof WEBHOOK_HEADERS, { description: string; example: string; required?: false }> = {
  event: { description: "The kind of the event, as in the body's `event`.", example: 'message.received' },
  eventId: {
    description: "The event id, as in the body's `id` (the same in the feed and in every attempt): deduplicate on it.",
    example: '1287',
  },
  timestamp: {
    description: 'Unix seconds when this attempt was signed; refuse one more than 5 minutes from your clock.',
    example: '1763719445',
  },
  signature: {
    description:
      '`sha256=` and the lowercase hex HMAC-SHA256 of `{X-SVC-Timestamp}.{raw body}`, keyed with the whole secret (`whsec_…`, prefix included) as UTF-8. Compare in constant time.',
    example: 'sha256=6f1c0b1d3c9a6f2b0e7d8a4c5b3e2f1a0d9c8b7a6e5f4d3c2b1a0f9e8d7c6b5a',
  },
  signatureNext: {
    description:
      'Only during the 24 hours after a secret rotation: the same signature made with the new secret (`X-SVC-Signature` keeps using the previous one). A receiver holding either secret verifies one of the two.',
    example: 'sha256=0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9',
    required: false,
  },
  test: {
    description: 'Present (`1`) only on a test send (`POST /webhooks/{id}/test`): event id 0, not in the feed.',
    example: '1',
    required: false,
  },
};

/**
 * The OpenAPI 3.1 `webhooks` section: one POST per event kind, with its payload (the kind's
 * `{Kind}Event` schema and an example) and the headers every delivery carries.
 */
export function webhooksSection(): Record<string, unknown> {
  const parameters = (Object.keys(WEBHOOK_HEADERS) as Array<keyof typeof WEBHOOK_HEADERS>).map((key) => ({
    name: WEBHOOK_HEADERS[key],
    in: 'header',
    required: HEADER_DOCS[key].required ?? true,
    description: HEADER_DOCS[key].description,
    schema: { type: 'string' },
    example: HEADER_DOCS[key].example,
  }));
  return Object.fromEntries(
    EVENT_KINDS.map((kind) => [
      kind,
      {
        post: {
          operationId: `on${eventSchemaName(kind)}`,
          tags: ['Webhooks'],
          summary: `A \`${kind}\` event, POSTed to every endpoint that receives this kind.`,
          description:
            'Sent to your endpoint with the headers below. Verify the signature over the raw body before parsing it. Answer any 2xx within 8 seconds; otherwise the same event (same id and body, a fresh timestamp and signature) is sent again after 1 min, 5 min, 30 min, 2 h, 6 h and 12 h.',
          parameters,
          requestBody: {
            required: true,
            content: {
              'application/json': { schema: { $ref: `#/components/schemas/${eventSchemaName(kind)}Event` }, example: exampleEvent(kind) },
            },
          },
          responses: {
            '2XX': { description: 'Received. Any 2xx within 8 seconds acknowledges the delivery; the body is ignored.' },
            default: {
              description: 'Anything else (or no answer within 8 s, or a redirect) is a failed attempt, retried on the schedule.',
            },
          },
        },
      },
    ]),
  );
}
