/** A real SMTP server on loopback for tests: it receives what the app sends over SMTP and parses each message. */
import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  to: string[];
  from: string;
  subject: string;
  text: string;
  /** The HTML alternative, when the message had one. */
  html: string;
  /** Attachments (inline images included), with their content id. */
  attachments: { contentType: string; cid: string | undefined; content: Buffer }[];
}

export interface Mailbox {
  /** `smtp://127.0.0.1:<port>`: pass it to the harness as SMTP_URL. */
  url: string;
  messages: ReceivedMail[];
  /** The newest message to `to` (throws when there is none). */
  last(to: string): ReceivedMail;
  /** How many messages `to` received. */
  count(to: string): number;
  /** While true, every recipient is refused with 451 (a temporary failure: the sender should retry later). */
  refusing: boolean;
  close(): Promise<void>;
}

/**
 * Starts an SMTP server on 127.0.0.1 (any port, no TLS, no auth). A message is parsed and stored before
 * the server acknowledges it, so when the app's SMTP send resolves the message is already readable.
 */
export async function startMailbox(): Promise<Mailbox> {
  const messages: ReceivedMail[] = [];
  const state = { refusing: false };
  const server = new SMTPServer({
    secure: false,
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onRcptTo(_address, _session, callback) {
      if (!state.refusing) return callback();
      callback(Object.assign(new Error('Mailbox busy, try again later'), { responseCode: 451 }));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      // The parse settles the SMTP transaction: callback() once the message is recorded, callback(err) when the
      // parse fails (the client gets an SMTP error), called outside the parse's promise so it runs once.
      const record = async (): Promise<Error | undefined> => {
        try {
          const mail = await simpleParser(Buffer.concat(chunks));
          const rcpt = session.envelope.rcptTo.map((r) => r.address.toLowerCase());
          messages.push({
            to: rcpt,
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            subject: mail.subject ?? '',
            text: mail.text ?? '',
            html: typeof mail.html === 'string' ? mail.html : '',
            attachments: mail.attachments.map((a) => ({ contentType: a.contentType, cid: a.cid, content: a.content })),
          });
          return undefined;
        } catch (err) {
          return err as Error;
        }
      };
      stream.on('end', () => {
        // record() never rejects; a throw from callback would surface as an unhandled rejection, failing the run.
        void (async () => {
          const failure = await record();
          if (failure) callback(failure);
          else callback();
        })();
      });
    },
  });
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => ok());
  });
  const port = (server.server.address() as AddressInfo).port;
  const to = (addr: string) => messages.filter((m) => m.to.includes(addr.toLowerCase()));
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    get refusing() {
      return state.refusing;
    },
    set refusing(on: boolean) {
      state.refusing = on;
    },
    last(addr) {
      const list = to(addr);
      const m = list[list.length - 1];
      if (!m) throw new Error(`no mail to ${addr}`);
      return m;
    },
    count: (addr) => to(addr).length,
    close: () => new Promise<void>((ok) => server.close(() => ok())),
  };
}

/** The 6-digit code in a verification e-mail. */
export function codeIn(mail: ReceivedMail): string {
  const m = /\b(\d{6})\b/.exec(mail.text);
  if (!m) throw new Error(`no code in: ${mail.text}`);
  return m[1]!;
}

/** The sign-in token in a sign-in e-mail (the `#token=` fragment of the link). */
export function signInTokenIn(mail: ReceivedMail): string {
  const m = /#token=([0-9a-z]+)/.exec(mail.text);
  if (!m) throw new Error(`no sign-in link in: ${mail.text}`);
  return m[1]!;
}
