/**
 * The per-call context a handler and the domain functions it calls receive: who is calling, storage, time, logging and
 * services.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Clock } from '../kernel/clock.ts';
import type { Principal } from '../kernel/principal.ts';
import type { Identity } from '../kernel/identity.ts';
import type { Config } from '../kernel/config.ts';
import type { Catalogs } from '../i18n/i18n.ts';
import type { Mailer } from '../mail/mailer.ts';
import type { TrustList } from '../mandates/trust-list.ts';
import type { Payments } from '../payments/payments.ts';
import type { Database } from '../storage/database.ts';
import type { CallKey } from '../storage/idempotency-store.ts';
import type { WebhookDispatcher } from '../webhooks/dispatcher.ts';
import type { TicketKeys } from '../tickets/ticket-keys.ts';
import type { BusinessMetrics } from '../kernel/metrics.ts';
import type { BusinessEvents } from '../kernel/business-events.ts';

/** What the adapter knows about the transport-level request (nothing transport-specific leaks further). */
export interface RequestInfo {
  /** The `Origin` header of a browser request, when there was one. */
  origin?: string;
  /** Preferred languages, most preferred first (from Accept-Language or an explicit choice). */
  languages?: string[];
  /** The surface the call came through. */
  surface: 'rest' | 'mcp' | 'a2a' | 'internal';
  /** Extra protocol headers a tool may need (e.g. ACP's API-Version), lower-cased names. */
  headers?: Record<string, string>;
  /** The HTTP request's id (`X-Request-Id`, src/http/request-log.ts), when the transport is HTTP. */
  requestId?: string;
  /** The request's rate-limit budget, when the transport keeps one (HTTP does; stdio and internal calls do not). */
  rate?: RateGate;
}

/**
 * Charges a request to a budget once its caller is known: an authenticated principal to its own, anyone else (no
 * credential, or one that failed) to the client address. Throws 429 `rate_limited` when the budget is spent.
 */
export interface RateGate {
  charge(principal: Principal | undefined, strict: boolean): Promise<void>;
}

export interface ToolContext {
  principal: Principal;
  /** Inside the tool's transaction when the tool is transactional; otherwise a fresh fork. */
  em: EntityManager;
  services: Services;
  clock: Clock;
  log: Logger;
  request: RequestInfo;
  idempotencyKey: string | undefined;
  /** The business-event log for this call: written once the orchestrator has committed it, dropped if it fails. */
  events: BusinessEvents;
  /**
   * The call's idempotency key, when it carries one: its one owner (src/storage/idempotency-store.ts). The orchestrator
   * claims it, except for a `transactional: 'shared'` tool, whose shared transaction claims and stores it with the
   * change (the reserve batch); either way the orchestrator settles the call's outcome with it.
   */
  idempotency?: CallKey;
  /** Only for a `transactional: 'shared'` tool (its calls share a transaction the domain runs: the reserve batch). */
  shared?: SharedCall;
}

/** What a call in a shared transaction gets from the orchestrator, beside its key (`ToolContext.idempotency`). */
export interface SharedCall {
  /** The handler's output checked against the tool's schema, with its status: the outcome the key is stored with. */
  finish(raw: unknown): { status: number; output: Record<string, unknown> };
  /**
   * The caller's rate-limit charge, still running: the domain writes nothing for the call (nor replays it) until it has
   * resolved, and a rejection is the call's answer. It runs beside the shared transaction's first statements instead of
   * before the call joins it.
   */
  charged?: Promise<void> | undefined;
}

/** The services a domain function may use; built once by createApp and shared by every call. */
export interface Services {
  config: Config;
  db: Database;
  clock: Clock;
  /** The base URL people and agents reach this server at. */
  publicUrl: () => string;
  /** Merchant webhooks: the signing-secret box and the dispatcher (fan-out, signed delivery, retries). */
  webhooks: WebhookDispatcher;
  /** The signed-mandate trust list: trusted signing networks and their cached JWKS. */
  mandateTrust: TrustList;
  /** Payment providers (the sandbox and its settlement dispatcher; `settleDue()` runs one pass). */
  payments: Payments;
  /** Buyer identity: signs session JWTs and keys emailed-code HMACs with the server secret. */
  identity: Identity;
  /** Outgoing mail: SMTP when SMTP_URL is set, otherwise the development outbox. */
  mail: Mailer;
  /** The order e-mail worker (domain/purchase/order-mail.ts): `kick()` it after a commit that queued an e-mail. */
  orderMail: { kick(): void };
  /** The message catalogs of the pages and the e-mails (i18next), loaded once. */
  catalogs: Catalogs;
  /** The ticket-signing keys: the active one signs new tickets' codes, all are published as a JWKS. */
  ticketKeys: TicketKeys;
  /** The stored form of a delegated payment token (`vt_…`): a keyed hash, never the token (kernel/tokens.ts). */
  vaultTokenHash: (token: string) => string;
  /** Business metrics (purchases, payment failures, hold expiries): counted after the change committed. */
  metrics: BusinessMetrics;
  /** The business-event log (sales, refunds, sign-ins...): written at once, so call it after the commit. */
  events: BusinessEvents;
}
