import { EventContact, GatewayContext } from '@svc/contracts';
import { ApiError, GATEWAY_CONTEXT_HEADER, InternalAuth } from '@svc/platform';
import type { Logger } from 'pino';
import { Pool } from 'undici';

function isContact(value: unknown): value is EventContact {
  const c = value as Partial<EventContact> | null;
  return (
    typeof c === 'object' &&
    c !== null &&
    Number.isSafeInteger(c.svc_id) &&
    (c.ref === null || typeof c.ref === 'string') &&
    typeof c.name === 'string' &&
    (c.email === null || typeof c.email === 'string') &&
    typeof c.email_confirmed === 'boolean' &&
    (c.phone === null || typeof c.phone === 'string') &&
    typeof c.phone_confirmed === 'boolean'
  );
}

/**
 * Customers, read from contacts-api's internal routes over keep-alive HTTP (no app reads another's
 * schema). Each call carries a signed context naming the account it is for; contacts-api scopes
 * the lookup to it.
 */
export class ContactsClient {
  private readonly pool: Pool;

  constructor(
    url: string,
    private readonly auth: InternalAuth,
    timeoutMs: number,
    private readonly logger: Logger,
  ) {
    this.pool = new Pool(url, { connections: 64, keepAliveTimeout: 10_000, connect: { timeout: 2_000 }, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
  }

  /** The account's customer with this ref, or null. */
  byRef(ref: string, context: GatewayContext): Promise<EventContact | null> {
    return this.get(`/internal/contacts/by-ref/${encodeURIComponent(ref)}`, context);
  }

  /** The account's customer with this svc_id, or null (unknown or erased). */
  bySvcId(svcId: number, context: GatewayContext): Promise<EventContact | null> {
    return this.get(`/internal/contacts/by-svc-id/${svcId}`, context);
  }

  async close(): Promise<void> {
    await this.pool.close();
  }

  private async get(path: string, context: GatewayContext): Promise<EventContact | null> {
    const headers = { [GATEWAY_CONTEXT_HEADER]: await this.auth.sign('contacts-api', context), 'x-request-id': context.requestId, accept: 'application/json' };
    let response;
    try {
      response = await this.pool.request({ method: 'GET', path, headers });
    } catch (err) {
      throw this.unavailable(context, (err as { code?: string }).code ?? String(err));
    }
    if (response.statusCode === 404) {
      await response.body.dump();
      return null;
    }
    if (response.statusCode !== 200) {
      await response.body.dump();
      throw this.unavailable(context, `status ${response.statusCode}`);
    }
    const body: unknown = await response.body.json();
    if (!isContact(body)) throw this.unavailable(context, 'unexpected body');
    return body;
  }

  private unavailable(context: GatewayContext, reason: string): ApiError {
    this.logger.warn({ request_id: context.requestId, upstream: 'contacts-api', reason }, 'customer lookup failed');
    return new ApiError('unavailable', 'The service is temporarily unavailable; retry shortly.', undefined, { 'retry-after': '1' });
  }
}
