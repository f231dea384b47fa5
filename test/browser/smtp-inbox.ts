/** A real SMTP server on loopback for browser tests: the app delivers mail to it over SMTP_URL; tests wait for messages. */
import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  to: string;
  subject: string;
  text: string;
}

interface Waiter {
  to: string;
  after: number;
  resolve: (m: ReceivedMail) => void;
}

export interface SmtpInbox {
  /** `smtp://127.0.0.1:<port>`, for the harness's SMTP_URL. */
  url: string;
  /** Every message received so far, oldest first. */
  messages: ReceivedMail[];
  /** A promise for the next message to `to` that arrives after this call (call it before the action that sends it). */
  next(to: string, timeoutMs?: number): Promise<ReceivedMail>;
  close(): Promise<void>;
}

export async function startSmtpInbox(): Promise<SmtpInbox> {
  const messages: ReceivedMail[] = [];
  let waiters: Waiter[] = [];
  const deliver = () => {
    waiters = waiters.filter((w) => {
      const m = messages.slice(w.after).find((x) => x.to === w.to);
      if (m) w.resolve(m);
      return !m;
    });
  };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      simpleParser(stream).then(
        (parsed) => {
          for (const rcpt of session.envelope.rcptTo) {
            messages.push({ to: rcpt.address.toLowerCase(), subject: parsed.subject ?? '', text: parsed.text ?? '' });
          }
          deliver();
          callback();
        },
        (err: Error) => callback(err),
      );
    },
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', () => ok()));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    next(to, timeoutMs = 20_000) {
      return new Promise<ReceivedMail>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no mail to ${to} within ${timeoutMs} ms`)), timeoutMs);
        waiters.push({
          to: to.toLowerCase(),
          after: messages.length,
          resolve: (m) => {
            clearTimeout(timer);
            resolve(m);
          },
        });
      });
    },
    close: () => new Promise<void>((ok) => server.close(() => ok())),
  };
}

/** The sign-in link in a sign-in e-mail. */
export function linkIn(mail: ReceivedMail): string {
  const m = /https?:\/\/\S+\/buyer\/sign-in\?\S*#token=[\w-]+/.exec(mail.text);
  if (!m) throw new Error(`no sign-in link in: ${mail.text}`);
  return m[0];
}

/** The 6-digit code in a verification e-mail. */
export function codeIn(mail: ReceivedMail): string {
  const m = /\b(\d{6})\b/.exec(mail.text);
  if (!m) throw new Error(`no code in: ${mail.text}`);
  return m[1]!;
}
