/** Reserve routing's Prometheus metrics (`/metrics`, RESERVE_ROUTING=owner): calls forwarded and received, ownership. */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { ReserveRouter } from '../domain/purchase/pool-owners.ts';

/**
 * Registers on `registry`, read from `router` at each scrape (nothing is done per call):
 * `tessera_reserve_routed_total{direction="forwarded"|"received"}` (reserves this process sent to the owner, and ran
 * for other processes) and `tessera_reserve_routing_owner` (1 while this process owns the reserves).
 */
export function registerRoutingMetrics(registry: Registry, router: ReserveRouter): void {
  new Counter({
    name: 'tessera_reserve_routed_total',
    help: 'Reserves this process forwarded to the owner process, and reserves it ran for other processes.',
    labelNames: ['direction'],
    registers: [registry],
    collect() {
      this.reset();
      this.inc({ direction: 'forwarded' }, router.counts.forwarded);
      this.inc({ direction: 'received' }, router.counts.received);
    },
  });
  new Gauge({
    name: 'tessera_reserve_routing_owner',
    help: '1 while this process batches the reserves of every process (RESERVE_ROUTING=owner), else 0.',
    registers: [registry],
    collect() {
      this.set(router.owner() ? 0 : 1);
    },
  });
}
