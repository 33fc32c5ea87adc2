import { GatewayContext, IdentifiedCustomer, VerifyIdentityPassResponse } from '@svc/contracts';
import { InternalClientOptions, InternalHttpClient } from './internal-http';

/** Same-browser passes, verified by identity-issuer (`POST /internal/identity/verify`). */
export class IdentityClient {
  private readonly http: InternalHttpClient;

  constructor(options: Omit<InternalClientOptions, 'upstream'>) {
    this.http = new InternalHttpClient({ ...options, upstream: 'identity-issuer' });
  }

  /** The customer the pass identifies on this account's chat, or null (invalid, expired, erased, another account's). */
  async verify(token: string, context: GatewayContext): Promise<IdentifiedCustomer | null> {
    const response = await this.http.call('POST', '/internal/identity/verify', context, { token, account_id: context.account.id });
    // A pass the route cannot even read (too long, …) identifies nobody either.
    if (response.status === 400) return null;
    const body = response.body as Partial<VerifyIdentityPassResponse> | undefined;
    if (response.status !== 200 || body?.customer === undefined) throw this.http.unavailable(context, `status ${response.status}`);
    return body.customer;
  }

  close(): Promise<void> {
    return this.http.close();
  }
}
