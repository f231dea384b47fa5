/**
 * Outgoing e-mail: delivered over SMTP (nodemailer) when SMTP_URL is set, otherwise kept in the outbox table for
 * developers.
 */
import type { Transporter } from 'nodemailer';
import type { Logger } from 'pino';
import type { Clock } from '../kernel/clock.ts';
import { describeError, ToolError } from '../kernel/errors.ts';
import type { Database } from '../storage/database.ts';
import { newId } from '../storage/ids.ts';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  /** An HTML alternative (the development outbox keeps the text only). */
  html?: string;
  /** Inline images the HTML refers to as `cid:<cid>` (e.g. ticket QR codes). */
  inline?: { cid: string; filename: string; contentType: string; content: Buffer }[];
  /** Files attached to the message (e.g. the tickets PDF); the development outbox keeps the text only. */
  attachments?: { filename: string; contentType: string; content: Buffer }[];
}

export interface MailerOptions {
  db: Database;
  clock: Clock;
  log: Logger;
  /** `smtp://user:pass@host:port` or `smtps://…`; undefined keeps mail in the outbox. */
  smtpUrl: string | undefined;
  from: string;
  timeoutMs: number;
}

/** The nodemailer SMTP options for an smtp:// or smtps:// URL. */
function smtpOptions(url: string, timeoutMs: number) {
  const u = new URL(url);
  const secure = u.protocol === 'smtps:';
  return {
    host: u.hostname.replace(/^\[|\]$/g, ''),
    port: u.port ? Number(u.port) : secure ? 465 : 587,
    secure,
    ...(u.username ? { auth: { user: decodeURIComponent(u.username), pass: decodeURIComponent(u.password) } } : {}),
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
  };
}

export class Mailer {
  private readonly opts: MailerOptions;
  /** The SMTP options (read at start, so a malformed SMTP_URL still stops the start); undefined for the outbox. */
  private readonly smtp: ReturnType<typeof smtpOptions> | undefined;
  /** The SMTP transport, made (and nodemailer, about 40 modules, loaded) on the first message. */
  private transport: Promise<Transporter> | undefined;

  constructor(opts: MailerOptions) {
    this.opts = opts;
    this.smtp = opts.smtpUrl ? smtpOptions(opts.smtpUrl, opts.timeoutMs) : undefined;
  }

  /** Where mail goes: `smtp` or the development `outbox`. */
  get mode(): 'smtp' | 'outbox' {
    return this.smtp ? 'smtp' : 'outbox';
  }

  /**
   * Sends one message (plain text, with an optional HTML alternative and inline images). Never call it inside a
   * database transaction (SMTP is network I/O). A delivery failure is logged without the body (it may carry a code) and
   * reported as `unavailable`.
   */
  async send(msg: MailMessage): Promise<void> {
    const smtp = this.smtp;
    if (!smtp) {
      await this.opts.db.execute(
        'insert into mail_outbox (id, to_address, subject, text_body, created_at) values (?, ?, ?, ?, ?)',
        [newId('mail', this.opts.clock.now()), msg.to, msg.subject, msg.text, this.opts.clock.now()],
      );
      return;
    }
    try {
      const transport = await (this.transport ??= import('nodemailer').then((m) => m.default.createTransport(smtp)));
      await transport.sendMail({
        from: this.opts.from,
        to: msg.to,
        subject: msg.subject,
        text: msg.text,
        ...(msg.html ? { html: msg.html } : {}),
        ...(msg.inline?.length || msg.attachments?.length
          ? {
              attachments: [
                ...(msg.inline ?? []).map((a) => ({ ...a, contentDisposition: 'inline' as const })),
                ...(msg.attachments ?? []),
              ],
            }
          : {}),
      });
    } catch (err) {
      this.opts.log.error({ err: describeError(err) }, 'mail delivery failed');
      throw new ToolError('unavailable', 'The e-mail could not be sent; retry in a moment.', undefined, 5);
    }
  }

  close(): void {
    void this.transport?.then((t) => t.close()).catch(() => undefined);
  }
}
