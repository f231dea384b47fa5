/** `tessera mail`, `tessera console-token`, `tessera staff`: developer and operator commands over the database. */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { Config } from './kernel/config.ts';
import { createLogger } from './log.ts';
import { listOutboxMail } from './mail/outbox.ts';
import { issueConsoleToken, issueStaffToken } from './domain/merchants/console-tokens.ts';
import { connectDatabase } from './storage/connect.ts';
import { openServerSecret } from './storage/server-secret.ts';
import { newId } from './storage/ids.ts';
import { UsageError } from './cli-network.ts';

export const ADMIN_USAGE = `  mail [--to EMAIL] [--limit N]
                             Show the development mail outbox (mail kept when SMTP_URL is unset), newest first.
  console-token --email EMAIL --org ORG [--json]
                             A console session token for a member of an organization (owner or integrator).
  staff --email EMAIL [--json]
                             Mark a person as service staff (created if new) and print a staff token.`;

/** Runs an admin command; returns the text to print. */
export async function adminCommand(config: Config, command: string, args: string[]): Promise<string> {
  const { values } = parseArgs({
    args,
    options: {
      to: { type: 'string' },
      limit: { type: 'string' },
      email: { type: 'string' },
      org: { type: 'string' },
      json: { type: 'boolean' },
    },
  });
  const conn = await connectDatabase(config, createLogger(config.logLevel));
  try {
    if (command === 'mail') {
      const limit = values.limit === undefined ? 20 : Number(values.limit);
      if (!Number.isInteger(limit) || limit < 1) throw new UsageError('--limit must be a positive integer');
      const mail = await listOutboxMail(conn.db, { to: values.to, limit });
      if (!mail.length)
        return config.smtpUrl
          ? 'No mail in the outbox (SMTP_URL is set, so mail is sent over SMTP).'
          : 'No mail in the outbox.';
      return mail.map((m) => `── ${m.createdAt}  to ${m.to}\nSubject: ${m.subject}\n\n${m.text.trim()}\n`).join('\n');
    }
    if (!values.email) throw new UsageError(`${command} needs --email`);
    const { secret } = await openServerSecret(conn.db, {
      configured: config.secret,
      keyFilePath: resolve(config.secretFile),
    });
    if (command === 'console-token') {
      if (!values.org) throw new UsageError('console-token needs --org');
      const t = await issueConsoleToken(conn.db, { email: values.email, organizationId: values.org }, { secret });
      return values.json
        ? JSON.stringify(t)
        : `Console token for ${values.email} (${t.role}), valid until ${t.expiresAt}:\n${t.token}`;
    }
    if (command === 'staff') {
      const email = values.email.trim().toLowerCase();
      await conn.db.execute(
        `insert into users (id, email, name, is_staff, created_at) values (?, ?, null, true, ?)
         on conflict (email) do update set is_staff = true`,
        [newId('user'), email, new Date()],
      );
      const t = await issueStaffToken(conn.db, { email }, { secret });
      return values.json
        ? JSON.stringify(t)
        : `${email} is service staff. Staff token, valid until ${t.expiresAt}:\n${t.token}`;
    }
    throw new UsageError(`unknown command ${command}`);
  } catch (err) {
    if (err instanceof Error && !(err instanceof UsageError) && /is not (a member|service staff)/.test(err.message))
      throw new UsageError(err.message);
    throw err;
  } finally {
    await conn.close();
  }
}
