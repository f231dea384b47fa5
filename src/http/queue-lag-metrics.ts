/** Queue lag on `/metrics`: how old the oldest undispatched outbox event and the oldest pending webhook delivery are. */
import { Gauge, type Registry } from 'prom-client';
import type { Logger } from 'pino';
import type { Clock } from '../kernel/clock.ts';
import { describeError } from '../kernel/errors.ts';
import type { Database } from '../storage/database.ts';
import { queueLag, type QueueLag } from '../storage/queue-lag.ts';

/**
 * Registers `tessera_outbox_lag_seconds` and `tessera_webhook_lag_seconds`, read from PostgreSQL at each scrape (so they
 * are the same on every process). A failed read keeps the last value and is logged, never failing the scrape.
 */
export function registerQueueLagMetrics(registry: Registry, deps: { db: Database; clock: Clock; log: Logger }): void {
  const gauge = (name: string, help: string, pick: (lag: QueueLag) => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      async collect() {
        try {
          this.set(pick(await queueLag(deps.db, deps.clock.now())));
        } catch (err) {
          deps.log.warn({ err: describeError(err) }, 'queue lag not read');
        }
      },
    });
  gauge(
    'tessera_outbox_lag_seconds',
    'Age of the oldest webhook event not yet fanned out to its deliveries (0: none waits).',
    (lag) => lag.outboxSeconds,
  );
  gauge(
    'tessera_webhook_lag_seconds',
    'Age of the oldest webhook delivery still pending (0: none waits).',
    (lag) => lag.webhookSeconds,
  );
}
