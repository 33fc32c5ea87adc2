import { createHmac, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One message the chat sent to the fake Cloud API. */
export interface SentWhatsappMessage {
  phoneNumberId: string;
  id: string;
  authorization: string | undefined;
  body: {
    to: string;
    type: 'text' | 'template';
    text?: { body: string };
    template?: { name: string; language: { code: string }; components: unknown[] };
  };
}

export interface InboundOptions {
  /** The customer's number, with or without `+`. */
  from: string;
  text: string;
  /** The message id (`wamid.…`); a new one when not given. Repeat it to test deduplication. */
  id?: string;
}

/**
 * A local stand-in for the WhatsApp Business Cloud API: `POST /{phone_number_id}/messages`
 * records what was sent and answers like the real one; `down()` makes it answer 503 until `up()`.
 * It also plays Meta's side of the webhook: `sendInbound` posts a signed message (or status).
 */
export class FakeWhatsapp {
  readonly sent: SentWhatsappMessage[] = [];
  private failing = false;

  /** `http://127.0.0.1:port`: give it to the chat as WHATSAPP_API_URL. */
  url = '';

  private constructor(
    private readonly server: Server,
    private readonly options: { webhookUrl: string; appSecret: string; phoneNumberId: string },
  ) {}

  static async start(options: { webhookUrl: string; appSecret: string; phoneNumberId: string; port?: number }): Promise<FakeWhatsapp> {
    const server = createServer((request, response) => {
      void fake.handle(request).then(({ status, body }) => {
        response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      });
    });
    const fake = new FakeWhatsapp(server, options);
    server.listen(options.port ?? 0, '127.0.0.1');
    await once(server, 'listening');
    fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return fake;
  }

  /** From now on the API answers 503 (an outage); `up()` ends it. */
  down(): void {
    this.failing = true;
  }

  up(): void {
    this.failing = false;
  }

  /** Posts a customer's text message to the chat's webhook, signed with the app secret (or `signature` as given). */
  async sendInbound(message: InboundOptions, signature?: string): Promise<{ status: number; id: string }> {
    const id = message.id ?? `wamid.${randomUUID()}`;
    const value = {
      messaging_product: 'whatsapp',
      metadata: { display_phone_number: '15550000000', phone_number_id: this.options.phoneNumberId },
      contacts: [{ profile: { name: 'Customer' }, wa_id: message.from.replace(/^\+/, '') }],
      messages: [
        {
          from: message.from.replace(/^\+/, ''),
          id,
          timestamp: String(Math.floor(Date.now() / 1000)),
          type: 'text',
          text: { body: message.text },
        },
      ],
    };
    return { status: await this.post(value, signature), id };
  }

  /** Posts a status of a message the chat sent (`sent`, `delivered`, `read`, `failed`). */
  async sendStatus(messageId: string, status: string, recipient: string): Promise<number> {
    const value = {
      messaging_product: 'whatsapp',
      metadata: { display_phone_number: '15550000000', phone_number_id: this.options.phoneNumberId },
      statuses: [{ id: messageId, status, timestamp: String(Math.floor(Date.now() / 1000)), recipient_id: recipient.replace(/^\+/, '') }],
    };
    return this.post(value);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async post(value: unknown, signature?: string): Promise<number> {
    const body = JSON.stringify({
      object: 'whatsapp_business_account',
      entry: [{ id: 'WABA_ID', changes: [{ field: 'messages', value }] }],
    });
    const header = signature ?? `sha256=${createHmac('sha256', this.options.appSecret).update(body).digest('hex')}`;
    const response = await fetch(this.options.webhookUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': header },
      body,
    });
    await response.arrayBuffer();
    return response.status;
  }

  private async handle(request: IncomingMessage): Promise<{ status: number; body: unknown }> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    if (this.failing) return { status: 503, body: { error: { message: 'Service temporarily unavailable', code: 2 } } };
    if (request.method === 'GET' && request.url === '/sent') return { status: 200, body: { sent: this.sent } };
    const match = /^\/([^/]+)\/messages$/.exec(request.url ?? '');
    if (request.method !== 'POST' || !match) return { status: 404, body: { error: { message: 'Unknown path', code: 100 } } };
    let parsed: SentWhatsappMessage['body'];
    try {
      parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as SentWhatsappMessage['body'];
    } catch {
      return { status: 400, body: { error: { message: 'Invalid JSON', code: 100 } } };
    }
    const id = `wamid.${randomUUID()}`;
    this.sent.push({
      phoneNumberId: decodeURIComponent(match[1] as string),
      id,
      authorization: request.headers.authorization,
      body: parsed,
    });
    return { status: 200, body: { messaging_product: 'whatsapp', contacts: [{ input: parsed.to, wa_id: parsed.to }], messages: [{ id }] } };
  }
}
