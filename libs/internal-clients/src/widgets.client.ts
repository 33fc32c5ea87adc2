import { GatewayContext, isPlan, WidgetAccountResponse } from '@svc/contracts';
import { InternalClientOptions, InternalHttpClient } from './internal-http';

/** The caller of a widget lookup: a service, not an account (the gateway checks only the signature). */
const SERVICE_CONTEXT: Omit<GatewayContext, 'requestId'> = { account: { id: '', name: 'chat', plan: 'scale' }, keyId: 'chat' };

/** The account of a widget id (`GET /internal/widgets/:widget` on the gateway, owner of accounts). */
export class WidgetsClient {
  private readonly http: InternalHttpClient;

  constructor(options: Omit<InternalClientOptions, 'upstream'>) {
    this.http = new InternalHttpClient({ ...options, upstream: 'gateway' });
  }

  /** The account, or null when no account has this widget id. */
  async account(widget: string, requestId: string): Promise<WidgetAccountResponse['account'] | null> {
    const context = { ...SERVICE_CONTEXT, requestId };
    const response = await this.http.call('GET', `/internal/widgets/${encodeURIComponent(widget)}`, context);
    if (response.status === 404) return null;
    const account = (response.body as Partial<WidgetAccountResponse> | undefined)?.account;
    if (response.status !== 200 || typeof account?.id !== 'string' || typeof account.name !== 'string' || !isPlan(String(account.plan))) {
      throw this.http.unavailable(context, `status ${response.status}`);
    }
    return account;
  }

  close(): Promise<void> {
    return this.http.close();
  }
}
