/** The payment providers this environment runs, and the sandbox's background settlement. */
import type { Logger } from 'pino';
import type { Clock } from '../kernel/clock.ts';
import { ToolError } from '../kernel/errors.ts';
import type { Database } from '../storage/database.ts';
import type { PaymentProvider } from './provider.ts';
import { SecretBox } from '../webhooks/secret-box.ts';
import { SandboxDispatcher, type SettleReport } from './sandbox-dispatcher.ts';
import { SandboxProvider } from './sandbox-provider.ts';

export interface PaymentsDeps {
  db: Database;
  clock: Clock;
  log: Logger;
  publicUrl: () => string;
  webhookSecret: string;
  settleMs: number;
  /** The server secret: the key (HKDF, its own purpose) that seals providers' credentials at rest. */
  serverSecret: string;
}

export class Payments {
  readonly sandbox: SandboxProvider;
  readonly dispatcher: SandboxDispatcher;
  /** Seals a configured provider's secret credentials at rest (AES-256-GCM, bound to shop and provider). */
  readonly credentials: SecretBox;

  constructor(deps: PaymentsDeps) {
    this.credentials = new SecretBox(deps.serverSecret, 'tessera/payment-provider-credentials');
    this.sandbox = new SandboxProvider({ db: deps.db, webhookSecret: deps.webhookSecret, settleMs: deps.settleMs });
    this.dispatcher = new SandboxDispatcher({
      db: deps.db,
      clock: deps.clock,
      log: deps.log.child({ component: 'sandbox-provider' }),
      webhookSecret: deps.webhookSecret,
      publicUrl: deps.publicUrl,
    });
  }

  /** The provider a shop is linked to; `provider_not_enabled` for one not switched on here (`stripe`, spec §9). */
  provider(name: string): PaymentProvider {
    if (name === 'sandbox') return this.sandbox;
    throw new ToolError('provider_not_enabled', notEnabledMessage(name), { provider: name });
  }

  /** One sandbox settlement pass at the injected clock's time (tests call this instead of sleeping). */
  settleDue(): Promise<SettleReport> {
    return this.dispatcher.settleDue();
  }

  start(intervalMs: number): void {
    this.dispatcher.start(intervalMs);
  }

  stop(): Promise<void> {
    return this.dispatcher.stop();
  }
}

function notEnabledMessage(name: string): string {
  return `The ${name} payment provider is not switched on in the sandbox; the sandbox provider remains the one to test with.`;
}
