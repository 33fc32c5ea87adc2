import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, JSONRPCRequest, JSONRPCResponse, RequestId } from '@modelcontextprotocol/sdk/types.js';
import { GatewayContext } from '@svc/contracts';

interface Pending {
  /** The id the client gave the request, put back on its response. */
  clientId: RequestId;
  caller: GatewayContext;
  resolve: (response: JSONRPCResponse) => void;
}

/**
 * The transport every `POST /mcp` shares: requests enter under ids of its own, handlers read the caller with
 * `callerOf(extra.requestId)`. See docs/adr/011-mcp-one-sdk-server.md
 */
export class ExchangeTransport implements Transport {
  onmessage?: Transport['onmessage'];
  onclose?: () => void;
  onerror?: (error: Error) => void;

  private lastId = 0;
  private readonly pending = new Map<number, Pending>();

  async start(): Promise<void> {}

  async close(): Promise<void> {
    this.onclose?.();
  }

  /** The requests of one POST, for `caller`: their responses, in the same order, under the client's ids. */
  exchange(requests: readonly JSONRPCRequest[], caller: GatewayContext): Promise<JSONRPCResponse[]> {
    return Promise.all(
      requests.map(
        (request) =>
          new Promise<JSONRPCResponse>((resolve) => {
            this.lastId += 1;
            this.pending.set(this.lastId, { clientId: request.id, caller, resolve });
            this.onmessage?.({ ...request, id: this.lastId });
          }),
      ),
    );
  }

  /** The caller of a request the server is handling (`extra.requestId` in a handler). */
  callerOf(id: RequestId): GatewayContext {
    const pending = typeof id === 'number' ? this.pending.get(id) : undefined;
    if (!pending) throw new Error(`no request ${String(id)} in flight`);
    return pending.caller;
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (!('result' in message) && !('error' in message)) return;
    const id = message.id;
    if (typeof id !== 'number') return;
    const pending = this.pending.get(id);
    if (!pending) return;
    this.pending.delete(id);
    pending.resolve({ ...message, id: pending.clientId });
  }
}
