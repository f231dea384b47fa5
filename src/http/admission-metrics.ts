/** The reserve admission's Prometheus metrics (`/metrics`): decisions by outcome, calls inside and arriving, state. */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { AdmissionCounts } from '../domain/purchase/reserve-admission.ts';

/**
 * Registers on `registry` the reserve admission's counters and gauges, read from `counts` at each scrape (nothing is
 * done per call): `tessera_reserve_admissions_total{outcome="admitted"|"refused"}`, `tessera_reserve_admission_calls`
 * `{phase="inside"|"arriving"}` and `tessera_reserve_admission_shedding` (1 while most recent decisions are refusals).
 */
export function registerAdmissionMetrics(registry: Registry, counts: () => AdmissionCounts): void {
  new Counter({
    name: 'tessera_reserve_admissions_total',
    help: 'Reserve admission decisions of this process: admitted (took a place) or refused for load (429).',
    labelNames: ['outcome'],
    registers: [registry],
    collect() {
      const c = counts();
      this.reset();
      this.inc({ outcome: 'admitted' }, c.admitted);
      this.inc({ outcome: 'refused' }, c.refused);
    },
  });
  new Gauge({
    name: 'tessera_reserve_admission_calls',
    help: 'Reserves holding a place (inside: queued or being written) or read whole and being authenticated (arriving)',
    labelNames: ['phase'],
    registers: [registry],
    collect() {
      const c = counts();
      this.set({ phase: 'inside' }, c.inside);
      this.set({ phase: 'arriving' }, c.arriving);
    },
  });
  new Gauge({
    name: 'tessera_reserve_admission_shedding',
    help: '1 while most reserve admission decisions of the last 10 to 20 s were refusals for load, else 0.',
    registers: [registry],
    collect() {
      this.set(counts().state === 'shedding' ? 1 : 0);
    },
  });
}
