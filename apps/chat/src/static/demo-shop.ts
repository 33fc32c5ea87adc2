import { Inject, Injectable } from '@nestjs/common';
import type { ContactResponseDto, IdentityPassResponseDto, WhoamiResponseDto } from '@svc/contracts';
import { ApiError } from '@svc/platform';
import { demoPage } from './demo-page';
import { CHAT_CONFIG, ChatConfig } from '../chat.config';

/** The ref of the demo account's sample customer (tools/demo.mjs writes them). */
export const DEMO_CUSTOMER_REF = 'demo-ada';

/**
 * The demo page's data, asked of the public API with the demo account's key, as a business's own
 * backend would: its widget id (`/whoami`) and a fresh pass for the sample customer.
 */
@Injectable()
export class DemoShop {
  private readonly gatewayUrl: string;
  private readonly key: string;

  constructor(@Inject(CHAT_CONFIG) config: Pick<ChatConfig, 'GATEWAY_URL' | 'CHAT_DEMO_KEY'>) {
    this.gatewayUrl = config.GATEWAY_URL;
    this.key = config.CHAT_DEMO_KEY;
  }

  get enabled(): boolean {
    return this.key !== '';
  }

  async page(anonymous: boolean): Promise<string> {
    const whoami = await this.call<WhoamiResponseDto>('GET', '/whoami');
    if (anonymous) return demoPage({ widget: whoami.widget });
    const [customer, pass] = await Promise.all([
      this.call<ContactResponseDto>('GET', `/contacts/${DEMO_CUSTOMER_REF}`),
      this.call<IdentityPassResponseDto>('POST', `/contacts/${DEMO_CUSTOMER_REF}/identity`),
    ]);
    return demoPage({ widget: whoami.widget, identity: pass.token, customerName: customer.name });
  }

  private async call<T>(method: string, path: string): Promise<T> {
    const response = await fetch(`${this.gatewayUrl}/api/v1${path}`, { method, headers: { authorization: `Bearer ${this.key}` } }).catch(
      () => null,
    );
    if (!response?.ok)
      throw new ApiError(
        'unavailable',
        `The demo account could not be read (${response ? response.status : 'gateway unreachable'} on ${path}); run \`npm start\` again to set it up.`,
      );
    return (await response.json()) as T;
  }
}
