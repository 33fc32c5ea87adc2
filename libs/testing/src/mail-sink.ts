import { simpleParser, ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import type { AddressInfo } from 'node:net';

/**
 * An SMTP server that keeps every message it receives, parsed (tests: the chat's confirmation
 * emails). No authentication, no TLS: for 127.0.0.1 only.
 */
export class MailSink {
  readonly received: ParsedMail[] = [];

  /** The port it listens on (chosen at start). */
  port = 0;

  private constructor(private readonly server: SMTPServer) {}

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  /** `refuse`: the reply text (with code 550) to a recipient it refuses, or undefined to take it. */
  static async start(port = 0, refuse: (recipient: string) => string | undefined = () => undefined): Promise<MailSink> {
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onRcptTo(address, _session, callback) {
        const refusal = refuse(address.address);
        callback(refusal === undefined ? undefined : Object.assign(new Error(refusal), { responseCode: 550 }));
      },
      onData(stream, _session, callback) {
        simpleParser(stream)
          .then((mail) => {
            sink.received.push(mail);
            callback();
          })
          .catch((err: Error) => callback(err));
      },
    });
    const sink = new MailSink(server);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    const address = (server as unknown as { server: { address(): AddressInfo } }).server.address();
    sink.port = address.port;
    return sink;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
