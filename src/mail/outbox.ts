/**
 * Reads the development mail outbox (mail kept when no SMTP server is configured): `tessera mail` and /dev/mail use
 * this.
 */
import type { Database } from '../storage/database.ts';

export interface OutboxMessage {
  id: string;
  to: string;
  subject: string;
  text: string;
  createdAt: string;
}

/** The newest outbox messages first, optionally only those to one address (case-insensitive). */
export async function listOutboxMail(
  db: Database,
  opts: { to?: string | undefined; limit?: number } = {},
): Promise<OutboxMessage[]> {
  const limit = Math.min(Math.max(opts.limit ?? 20, 1), 500);
  const params: unknown[] = [];
  let where = '';
  if (opts.to) {
    where = 'where to_address = ?';
    params.push(opts.to.trim().toLowerCase());
  }
  const rows = await db.execute<{
    id: string;
    to_address: string;
    subject: string;
    text_body: string;
    created_at: Date;
  }>(
    `select id, to_address, subject, text_body, created_at from mail_outbox ${where} order by created_at desc, id desc limit ${limit}`,
    params,
  );
  return rows.map((r) => ({
    id: r.id,
    to: r.to_address,
    subject: r.subject,
    text: r.text_body,
    createdAt: new Date(r.created_at).toISOString(),
  }));
}
