/**
 * Console sign-in for merchant people, independent of the CLI: a single-use magic link (15 minutes; only its
 * token's hash is stored) is emailed to a member; redeeming it gives a console session (8 hours) for one of the
 * organizations the person belongs to, with the role their membership has. Asking answers the same whether or not
 * the address belongs to a member (no enumeration); only members get mail.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ToolContext } from '../context.ts';
import { ToolError } from '../../kernel/errors.ts';
import { hashToken, type SessionClaims } from '../../kernel/tokens.ts';
import type { Role } from '../../kernel/principal.ts';
import { consoleSignInMail } from '../../mail/console-templates.ts';
import { sql } from '../../storage/database.ts';
import { newId, randomToken } from '../../storage/ids.ts';
import { WebSessions } from '../../storage/web-sessions.ts';
import { throttleMail } from '../buyers/throttle.ts';
import { normalizeEmail } from '../buyers/sessions.ts';

export const CONSOLE_SIGN_IN_TTL_MINUTES = 15;
export const CONSOLE_SESSION_TTL_SECONDS = 8 * 3600;

/** The console page the emailed link opens; the token rides in the fragment so it never reaches server logs. */
export function consoleSignInUrl(publicUrl: string, token: string): string {
  return `${publicUrl}/console/verify#token=${token}`;
}

export interface Membership {
  organizationId: string;
  organizationName: string;
  role: Role;
}

/** The organizations a user belongs to, oldest membership first. */
export async function membershipsOf(em: EntityManager, userId: string): Promise<Membership[]> {
  const rows = await sql<{ organization_id: string; name: string; role: Role }>(
    em,
    `select m.organization_id, o.name, m.role from memberships m join organizations o on o.id = m.organization_id
      where m.user_id = ? order by m.created_at, m.organization_id`,
    [userId],
  );
  return rows.map((r) => ({ organizationId: r.organization_id, organizationName: r.name, role: r.role }));
}

export interface ConsoleSession {
  token: string;
  tokenType: 'Bearer';
  expiresAt: string;
  userId: string;
  email: string;
  organizationId: string;
  role: Role;
  organizations: Membership[];
}

/**
 * Signs a console session for `userId` in `organizationId` (a membership must exist), with the membership's role.
 * `invitation`: the session comes from an invitation link, which proves only that the inviting organization wants
 * this address; it acts in that organization alone, lists only it and cannot switch (`switchConsoleOrganization`).
 */
export async function openConsoleSession(
  ctx: Pick<ToolContext, 'em' | 'services' | 'clock'>,
  userId: string,
  organizationId?: string,
  opts: { invitation?: boolean } = {},
): Promise<ConsoleSession> {
  const all = await membershipsOf(ctx.em, userId);
  const chosen = organizationId ? all.find((m) => m.organizationId === organizationId) : all[0];
  if (!chosen)
    throw new ToolError(
      'not_found',
      organizationId ? `No organization ${organizationId} for this person.` : 'This person belongs to no organization.',
    );
  const orgs = opts.invitation ? [chosen] : all;
  const [user] = await sql<{ email: string }>(ctx.em, 'select email from users where id = ?', [userId]);
  const ttl = CONSOLE_SESSION_TTL_SECONDS;
  const claims: SessionClaims = { typ: 'console', sub: userId, org: chosen.organizationId, role: chosen.role };
  if (opts.invitation) claims.inv = true;
  const token = await ctx.services.identity.sign(claims, ttl);
  const expiresAt = new Date(Math.floor(ctx.clock.now().getTime() / 1000) * 1000 + ttl * 1000).toISOString();
  return {
    token,
    tokenType: 'Bearer',
    expiresAt,
    userId,
    email: user?.email ?? '',
    organizationId: chosen.organizationId,
    role: chosen.role,
    organizations: orgs,
  };
}

/**
 * A session for another organization the signed-in person belongs to. A session opened by an invitation stays in the
 * inviting organization: reaching the person's other organizations takes a sign-in by e-mail (403 forbidden).
 */
export async function switchConsoleOrganization(
  ctx: Pick<ToolContext, 'em' | 'services' | 'clock' | 'principal'>,
  organizationId: string,
): Promise<ConsoleSession> {
  const { principal } = ctx;
  if (principal.kind !== 'console_user') throw new ToolError('forbidden');
  if (principal.invitation && organizationId !== principal.organizationId) {
    const message = 'A session opened by an invitation acts only in the inviting organization: sign in to switch.';
    throw new ToolError('forbidden', message, { organizationId: principal.organizationId });
  }
  return openConsoleSession(ctx, principal.userId, organizationId, { invitation: principal.invitation === true });
}

/**
 * Stores a link and emails it when the address is a member's; answers the same either way. `delivery` says how mail
 * leaves this server (the same for every address, so it tells nothing about one): `smtp`, or `outbox` when no SMTP
 * server is set and mail is kept in the development outbox (`/dev/mail` on a loopback server, `npx tessera mail`).
 */
export async function requestConsoleSignInLink(
  ctx: ToolContext,
  emailInput: string,
): Promise<{ sent: true; expiresAt: string; delivery: 'smtp' | 'outbox' }> {
  const { services, clock } = ctx;
  const now = clock.now();
  const email = normalizeEmail(emailInput);
  const token = randomToken(32);
  const expiresAt = new Date(now.getTime() + CONSOLE_SIGN_IN_TTL_MINUTES * 60_000);
  const member = await services.db.transaction(async (em) => {
    await throttleMail(em, 'consoleSignIn', email, now);
    const [row] = await sql<{ n: string }>(
      em,
      'select count(*) as n from memberships m join users u on u.id = m.user_id where u.email = ?',
      [email],
    );
    await sql(
      em,
      'insert into console_sign_in_links (id, token_hash, email, expires_at, used_at, created_at) values (?, ?, ?, ?, null, ?)',
      [newId('consoleSignInLink', now), hashToken(token), email, expiresAt, now],
    );
    return Number(row?.n ?? 0) > 0;
  });
  if (member)
    await services.mail.send({
      to: email,
      ...consoleSignInMail(consoleSignInUrl(services.publicUrl(), token), CONSOLE_SIGN_IN_TTL_MINUTES),
    });
  const delivery = services.config.smtpUrl ? 'smtp' : 'outbox';
  return { sent: true, expiresAt: expiresAt.toISOString(), delivery };
}

/** Redeems a link exactly once (an atomic conditional update) and opens a console session. */
export async function completeConsoleSignIn(
  ctx: ToolContext,
  token: string,
  organizationId?: string,
): Promise<ConsoleSession> {
  const now = ctx.clock.now();
  const rows = await sql<{ email: string }>(
    ctx.em,
    'update console_sign_in_links set used_at = ? where token_hash = ? and used_at is null and expires_at > ? returning email',
    [now, hashToken(token), now],
  );
  const link = rows[0];
  if (!link) throw new ToolError('sign_in_link_invalid');
  const [user] = await sql<{ id: string }>(ctx.em, 'select id from users where email = ?', [link.email]);
  if (!user) throw new ToolError('sign_in_link_invalid', 'This address belongs to no console member.');
  const session = await openConsoleSession(ctx, user.id, organizationId);
  ctx.events.record({ event: 'sign_in', surface: 'console', userId: user.id, organizationId: session.organizationId });
  return session;
}

/** The calling console session as the console restores it after a reload: who, where, with which role, until when. */
export async function describeConsoleSession(ctx: Pick<ToolContext, 'em' | 'principal'>) {
  const { principal } = ctx;
  if (principal.kind !== 'console_user') throw new ToolError('forbidden');
  const all = await membershipsOf(ctx.em, principal.userId);
  const organizations = principal.invitation ? all.filter((m) => m.organizationId === principal.organizationId) : all;
  const [user] = await sql<{ email: string }>(ctx.em, 'select email from users where id = ?', [principal.userId]);
  const expiresAt = principal.expiresAt === undefined ? null : new Date(principal.expiresAt * 1000).toISOString();
  return {
    userId: principal.userId,
    email: user?.email ?? '',
    organizationId: principal.organizationId,
    role: principal.role,
    organizations,
    expiresAt,
  };
}

/**
 * Signs out: the page session (cookie) the call was made with ends now, server-side, for console and buyer pages
 * alike. A bearer JWT cannot be ended early (it expires on its own): `ended` is false then.
 */
export async function endPageSession(ctx: Pick<ToolContext, 'principal' | 'services' | 'clock'>) {
  const { principal } = ctx;
  const id = principal.kind === 'console_user' || principal.kind === 'buyer' ? principal.webSessionId : undefined;
  const ended = id ? await new WebSessions(ctx.services.db).end(id, ctx.clock.now()) : false;
  return { ended };
}
