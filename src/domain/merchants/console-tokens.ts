/** Console and staff session tokens for people (the lead's CLI exposes these, e.g. `tessera console-token`). */
import { systemClock, type Clock } from '../../kernel/clock.ts';
import type { Database } from '../../storage/database.ts';
import { ROLES, type Role } from '../../kernel/principal.ts';
import { sessionKey, signSession, type SessionClaims } from '../../kernel/tokens.ts';

export interface TokenOptions {
  /** The server secret, as the server has it (`openServerSecret`: TESSERA_SECRET or the key file). */
  secret: string;
  clock?: Clock;
  ttlSeconds?: number;
}

export interface ConsoleToken {
  token: string;
  userId: string;
  organizationId: string;
  role: Role;
  expiresAt: string;
}

function authenticator(opts: TokenOptions): {
  auth: { sign(c: SessionClaims, ttl: number): Promise<string> };
  clock: Clock;
} {
  const clock = opts.clock ?? systemClock;
  const key = sessionKey(opts.secret);
  return { auth: { sign: (claims, ttl) => signSession(key, clock, claims, ttl) }, clock };
}

/** A console JWT for the member `email` of `organizationId`, with their role (8 hours by default). */
export async function issueConsoleToken(
  db: Database,
  args: { email: string; organizationId: string },
  opts: TokenOptions,
): Promise<ConsoleToken> {
  const rows = await db.execute<{ user_id: string; role: string }>(
    'select m.user_id, m.role from memberships m join users u on u.id = m.user_id where u.email = ? and m.organization_id = ?',
    [args.email.trim().toLowerCase(), args.organizationId],
  );
  const row = rows[0];
  if (!row || !(ROLES as readonly string[]).includes(row.role))
    throw new Error(`${args.email} is not a member of ${args.organizationId}.`);
  const { auth, clock } = authenticator(opts);
  const ttl = opts.ttlSeconds ?? 8 * 3600;
  const role = row.role as Role;
  const token = await auth.sign({ typ: 'console', sub: row.user_id, org: args.organizationId, role }, ttl);
  const expiresAt = new Date(clock.now().getTime() + ttl * 1000).toISOString();
  return { token, userId: row.user_id, organizationId: args.organizationId, role, expiresAt };
}

/** A staff JWT for a user marked as service staff (`users.is_staff`), 1 hour by default. */
export async function issueStaffToken(
  db: Database,
  args: { email: string },
  opts: TokenOptions,
): Promise<{ token: string; userId: string; expiresAt: string }> {
  const rows = await db.execute<{ id: string }>('select id from users where email = ? and is_staff', [
    args.email.trim().toLowerCase(),
  ]);
  const row = rows[0];
  if (!row) throw new Error(`${args.email} is not service staff.`);
  const { auth, clock } = authenticator(opts);
  const ttl = opts.ttlSeconds ?? 3600;
  const token = await auth.sign({ typ: 'staff', sub: row.id }, ttl);
  return { token, userId: row.id, expiresAt: new Date(clock.now().getTime() + ttl * 1000).toISOString() };
}
