import { Plan } from './plans';

/** What the gateway tells a service about an authenticated call, signed (see `@svc/platform` internal auth). */
export interface GatewayContext {
  account: { id: string; name: string; plan: Plan };
  keyId: string;
  requestId: string;
}
