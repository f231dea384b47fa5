/** The domain services a tool handler may use; built once by createApp and shared by every call. */
import type { Identity } from '../buyers/identity.ts';
import type { Config } from '../config.ts';
import type { Mailer } from '../mail/mailer.ts';
import type { TrustList } from '../mandates/trust-list.ts';
import type { Payments } from '../payments/payments.ts';
import type { Database } from '../storage/database.ts';
import type { WebhookDispatcher } from '../webhooks/dispatcher.ts';
import type { Clock } from './clock.ts';
import type { HoldSweeper } from './sweeper.ts';

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
  /** Releases expired holds (`sweepExpiredHolds(now, limit)`) and retries owed refunds. */
  sweeper: HoldSweeper;
  /** Buyer identity: signs session JWTs and keys emailed-code HMACs with the server secret. */
  identity: Identity;
  /** Outgoing mail: SMTP when SMTP_URL is set, otherwise the development outbox. */
  mail: Mailer;
}
