/**
 * What spending authority costs: one whole purchase (quote → reserve → confirm, or quote → purchase_initiate) by a
 * merchant API key, by an agent inside its buyer's permission, and by an agent under a network-signed mandate, measured
 * over HTTP in the same run. Usage: npm run bench:authority [-- --purchases 150]
 */
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { buyerWithAgent, merchantShop, startWorld } from '../test/support/buyers.ts';
import { makeKey, mandateText, signDetached, writeTrustList } from '../test/support/independent-signer.ts';
import { globalSetup, globalTeardown } from '../test/support/global-setup.ts';
import { restClient } from '../test/support/rest.ts';

const { values } = parseArgs({ options: { purchases: { type: 'string' } } });
const N = Number(values.purchases ?? 150);
type Api = ReturnType<typeof restClient>;

function ok(res: { status: number; body: any }, status: number): any {
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body;
}

async function measure(
  label: string,
  buy: () => Promise<void>,
): Promise<{ label: string; mean: number; p50: number; p99: number }> {
  for (let i = 0; i < 10; i++) await buy();
  const times: number[] = [];
  for (let i = 0; i < N; i++) {
    const t0 = performance.now();
    await buy();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  const at = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))]!;
  return { label, mean: times.reduce((a, b) => a + b, 0) / times.length, p50: at(0.5), p99: at(0.99) };
}

await globalSetup();
const signing = makeKey('EdDSA');
const trust = writeTrustList([signing]);
const w = await startWorld({ MANDATE_TRUST_LIST: trust.path, LOG_LEVEL: 'silent' });
try {
  const total = (N + 10) * 3;
  const shop = await merchantShop(w.h, { priceMinor: 1000, capacity: total });
  const agent = await buyerWithAgent(w, shop, {
    perPurchaseCapMinor: 5000,
    allowanceMinor: 1000 * total,
    windowHours: 24,
  });
  const agentApi = restClient(w.h.url, agent.agentToken);
  const quote = async (api: Api) =>
    ok(await api.post('/v1/ticketing/quotes', { tierId: shop.tierId, quantity: 1 }), 201).quoteId as string;
  const reserveAndConfirm = async (api: Api, paymentMethod?: string) => {
    const r = ok(
      await api.post('/v1/ticketing/reservations', { quoteId: await quote(api) }, { 'idempotency-key': randomUUID() }),
      201,
    );
    const body = paymentMethod ? { paymentMethod } : {};
    ok(
      await api.post(`/v1/ticketing/reservations/${r.reservation.id}/confirm`, body, {
        'idempotency-key': randomUUID(),
      }),
      200,
    );
  };
  const runs = [
    await measure('merchant API key: quote → reserve → confirm', () => reserveAndConfirm(shop.api, 'pm_sandbox_visa')),
    await measure('agent inside a permission: quote → reserve → confirm', () => reserveAndConfirm(agentApi)),
    await measure('agent under a signed mandate: quote → purchase_initiate', async () => {
      const payload = mandateText(w.h.clock.now(), shop.shopId, { credentialRef: 'sbx-token-visa-4242' });
      const mandate = { payload, signature: signDetached(signing, payload) };
      ok(
        await agentApi.post(
          '/v1/vic/purchase-initiate',
          { quoteId: await quote(agentApi), mandate },
          { 'idempotency-key': randomUUID() },
        ),
        200,
      );
    }),
  ];
  const base = runs[0]!.mean;
  console.log(`${N} purchases each, one at a time, one run (in-process server, embedded PostgreSQL)`);
  console.log('path                                                    | mean ms | p50 ms | p99 ms | ÷ merchant');
  for (const r of runs) {
    console.log(
      `${r.label.padEnd(55)} | ${r.mean.toFixed(1).padStart(7)} | ${r.p50.toFixed(1).padStart(6)} | ${r.p99.toFixed(1).padStart(6)} | ${(r.mean / base).toFixed(2).padStart(10)}`,
    );
  }
} finally {
  await w.close();
  rmSync(trust.dir, { recursive: true, force: true });
  await globalTeardown();
}
