import type { Logger } from 'pino';
import { createTransport, Transporter } from 'nodemailer';
import { request } from 'undici';

/** What a provider answered: sent (with its id of the message), or failed for now / for good. */
export type SendResult = { ok: true; providerId: string } | { ok: false; permanent: boolean; error: string };

/** A WhatsApp message the chat sends: free-form text, or an approved template. */
export type WhatsappOutbound =
  { to: string; type: 'text'; text: string } | { to: string; type: 'template'; template: string; lang: string; params: string[] };

/** The WhatsApp provider the chat speaks to; implemented for the Cloud API shape. */
export interface WhatsappProvider {
  send(phoneNumberId: string, message: WhatsappOutbound): Promise<SendResult>;
}

/** WhatsApp Business Cloud API: `POST {apiUrl}/{phone_number_id}/messages` with a bearer token. */
export class CloudApiProvider implements WhatsappProvider {
  constructor(
    private readonly apiUrl: string,
    private readonly accessToken: string,
    private readonly timeoutMs: number,
  ) {}

  async send(phoneNumberId: string, message: WhatsappOutbound): Promise<SendResult> {
    const to = message.to.replace(/^\+/, '');
    const body =
      message.type === 'text'
        ? { messaging_product: 'whatsapp', recipient_type: 'individual', to, type: 'text', text: { body: message.text } }
        : {
            messaging_product: 'whatsapp',
            to,
            type: 'template',
            template: {
              name: message.template,
              language: { code: message.lang },
              components:
                message.params.length > 0 ? [{ type: 'body', parameters: message.params.map((text) => ({ type: 'text', text })) }] : [],
            },
          };
    try {
      const response = await request(`${this.apiUrl}/${encodeURIComponent(phoneNumberId)}/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(this.accessToken ? { authorization: `Bearer ${this.accessToken}` } : {}) },
        body: JSON.stringify(body),
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
      });
      const text = await response.body.text();
      if (response.statusCode >= 200 && response.statusCode < 300) {
        const id = (JSON.parse(text) as { messages?: Array<{ id?: unknown }> }).messages?.[0]?.id;
        return { ok: true, providerId: typeof id === 'string' ? id : '' };
      }
      // 429 and 5xx pass; another 4xx (bad number, unknown template) never will.
      const permanent =
        response.statusCode >= 400 && response.statusCode < 500 && response.statusCode !== 429 && response.statusCode !== 408;
      return { ok: false, permanent, error: `status ${response.statusCode}: ${text.slice(0, 300)}` };
    } catch (err) {
      return { ok: false, permanent: false, error: (err as { code?: string }).code ?? (err as Error).message };
    }
  }
}

export interface OutgoingEmail {
  to: string;
  subject: string;
  text: string;
  html: string;
}

const EMAIL_ADDRESS = /[^\s@"'<>()[\],;:]+@[^\s@"'<>()[\],;:]+/g;

/** An SMTP error without the addresses it quotes (a refusal names the recipient): for logs and the delivery's stored error. */
export function withoutAddresses(text: string, recipient: string): string {
  return text.split(recipient).join('[email]').replace(EMAIL_ADDRESS, '[email]');
}

/** Email over SMTP (`SMTP_URL`) with nodemailer. */
export class EmailSender {
  /** Null while SMTP_URL is empty: emails stay queued. */
  private readonly transport: Transporter | null;

  constructor(
    smtpUrl: string,
    private readonly from: string,
    private readonly logger: Logger,
  ) {
    this.transport = smtpUrl === '' ? null : createTransport(smtpUrl);
  }

  async send(email: OutgoingEmail): Promise<SendResult> {
    if (!this.transport) return { ok: false, permanent: false, error: 'SMTP_URL is not set' };
    try {
      const info = await this.transport.sendMail({
        from: this.from,
        to: email.to,
        subject: email.subject,
        text: email.text,
        html: email.html,
      });
      return { ok: true, providerId: String(info.messageId ?? '') };
    } catch (err) {
      const code = (err as { responseCode?: number }).responseCode;
      // A 5xx SMTP reply refuses the message for good; no connection or 4xx: try again later.
      const permanent = typeof code === 'number' && code >= 500;
      const error = withoutAddresses((err as Error).message, email.to).slice(0, 300);
      this.logger.warn({ err: error, permanent }, 'email not sent');
      return { ok: false, permanent, error };
    }
  }

  close(): void {
    this.transport?.close();
  }
}
