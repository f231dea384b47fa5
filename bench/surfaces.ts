/**
 * The same tool call over REST, MCP (one client session over Streamable HTTP) and A2A (the SDK client over JSON-RPC),
 * against the same server in the same run, reported as ratios to REST: a read (`list_pools` of a shop with one pool,
 * and of one with fifty) and a write (`quote`), one call at a time, in interleaved rounds, median of three repetitions.
 * Run by `npm run bench` (part 5) and alone by `npm run bench:surfaces [-- --calls 300 --reps 3 --profile DIR]`
 * (`--profile` writes the server's V8 CPU profile into DIR, for docs/performance.md's breakdown).
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Message, TaskState } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { restClient } from '../test/support/rest.ts';
import { abortIsolatingFetch } from './http-client.ts';
import { repetition, report, type Call, type Stats, type SurfaceFigures } from './surface-rounds.ts';

export type { SurfaceFigures } from './surface-rounds.ts';

/**
 * `list_pools` (shops of 1 and 50 pools, made here) and `quote` over each surface with the merchant's API key: `calls`
 * per surface per repetition, `reps` repetitions (each a full set of interleaved rounds), figures as medians over the
 * repetitions. `serverPid`: the server's process, whose CPU per call is reported beside the times (NaN when not given
 * or not on Linux).
 */
export async function benchSurfaces(
  url: string,
  apiKey: string,
  calls: number,
  reps = 3,
  serverPid?: number,
): Promise<Record<string, SurfaceFigures>> {
  const rest = restClient(url, apiKey);
  // Shops of their own, so what list_pools returns does not depend on what ran before (bench parts 1–4 add dozens of
  // pools to the merchant's first shop): one pool, and fifty, whose output is about 50 times larger.
  const shopWith = async (name: string, pools: number) => {
    const shop = (await rest.post('/v1/integration/shops', { name, currency: 'EUR' })).body;
    const event = (
      await rest.post('/v1/integration/events', {
        merchantId: shop.id,
        title: `${name} night`,
        startsAt: '2030-01-01T20:00:00Z',
      })
    ).body;
    const made = [];
    for (let i = 0; i < pools; i++)
      made.push(
        (await rest.post('/v1/integration/pools', { merchantId: shop.id, eventId: event.id, capacity: 100 })).body,
      );
    return { shopId: shop.id as string, event, pool: made[0] };
  };
  const one = await shopWith('Surfaces', 1);
  const fifty = await shopWith('Surfaces fifty', 50);
  const { event, pool } = one;
  const tier = (
    await rest.post('/v1/integration/tiers', {
      eventId: event.id,
      poolId: pool.id,
      name: 'Surfaces GA',
      priceMinor: 4000,
    })
  ).body;
  const mcp = new Client({ name: 'bench', version: '0' });
  // One session for the whole run, so the SDK client's shared abort signal is kept from growing (bench/http-client.ts).
  await mcp.connect(
    new StreamableHTTPClientTransport(new URL('/mcp', url), {
      requestInit: { headers: { authorization: `Bearer ${apiKey}` } },
      fetch: abortIsolatingFetch,
    }),
  );
  const fetchImpl: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('authorization', `Bearer ${apiKey}`);
    return fetch(input, { ...init, headers });
  };
  const a2a = await new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl })],
    }),
  ).createFromUrl(url);
  const a2aCall =
    (skill: string, input: unknown): Call =>
    async () => {
      const message = Message.fromJSON({
        messageId: crypto.randomUUID(),
        role: 'ROLE_USER',
        parts: [{ data: { skill, input } }],
      });
      const r = await a2a.sendMessage({ tenant: '', configuration: undefined, metadata: undefined, message });
      return 'status' in r ? r.status?.state === TaskState.TASK_STATE_COMPLETED : r.parts[0]?.content?.$case === 'data';
    };
  const mcpCall =
    (name: string, args: Record<string, unknown>): Call =>
    async () =>
      !(await mcp.callTool({ name, arguments: args })).isError;
  const quoteInput = { tierId: tier.id as string, quantity: 1 };
  const tools: Record<string, Record<string, Call>> = {
    'list_pools (1 pool)': {
      REST: async () => (await rest.get(`/v1/integration/pools?merchantId=${one.shopId}`)).status === 200,
      'MCP (one session)': mcpCall('list_pools', { merchantId: one.shopId }),
      A2A: a2aCall('list_pools', { merchantId: one.shopId }),
    },
    'list_pools (50 pools)': {
      REST: async () => (await rest.get(`/v1/integration/pools?merchantId=${fifty.shopId}&limit=50`)).status === 200,
      'MCP (one session)': mcpCall('list_pools', { merchantId: fifty.shopId, limit: 50 }),
      A2A: a2aCall('list_pools', { merchantId: fifty.shopId, limit: 50 }),
    },
    quote: {
      REST: async () => (await rest.post('/v1/ticketing/quotes', quoteInput)).status === 201,
      'MCP (one session)': mcpCall('quote', quoteInput),
      A2A: a2aCall('quote', quoteInput),
    },
  };
  const results: Record<string, SurfaceFigures> = {};
  try {
    for (const surfaces of Object.values(tools))
      for (const call of Object.values(surfaces)) for (let i = 0; i < 20; i++) await call(); // warm-up
    for (const [tool, surfaces] of Object.entries(tools)) {
      const runs: Record<string, Stats>[] = [];
      for (let rep = 0; rep < reps; rep++) runs.push(await repetition(surfaces, calls, tool, serverPid));
      results[tool] = report(tool, runs, calls);
    }
  } finally {
    await mcp.close();
  }
  return results;
}

/** Alone: an embedded PostgreSQL, one `tessera serve` process, one merchant, then the surfaces. */
async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { calls: { type: 'string' }, reps: { type: 'string' }, profile: { type: 'string' } },
  });
  const { bootstrapOrganization } = await import('../src/domain/merchants/merchants.ts');
  const { Database } = await import('../src/storage/database.ts');
  const { startEmbeddedPostgres } = await import('../src/storage/embedded-postgres.ts');
  const { startServerProcess } = await import('../test/support/server-process.ts');
  const load0 = loadavg()[0]!;
  const began = performance.now();
  const dir = mkdtempSync(join(tmpdir(), 'tessera-bench-surfaces-'));
  chmodSync(dir, 0o755);
  const pgServer = await startEmbeddedPostgres(dir);
  try {
    const dbUrl = await pgServer.createDatabase('bench');
    const db = await Database.open(dbUrl);
    try {
      await db.migrate();
      const merchant = await db.transaction((em) =>
        bootstrapOrganization(
          em,
          {
            organization: 'Bench',
            email: 'bench@example.test',
            shop: 'Bench Hall',
            scopes: ['merchant:read', 'merchant:write', 'merchant:admin'],
          },
          new Date(),
        ),
      );
      const profile: Record<string, string> = values.profile
        ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${values.profile}` }
        : {};
      const server = await startServerProcess(
        {
          RATE_LIMIT_PER_MINUTE: '100000000',
          SWEEP_INTERVAL_MS: '0',
          WEBHOOK_DISPATCH_MS: '0',
          SANDBOX_DISPATCH_MS: '0',
          LOG_LEVEL: 'error',
          DATABASE_URL: dbUrl,
          ...profile,
        },
        180_000,
      );
      try {
        await benchSurfaces(
          server.url,
          merchant.apiKey,
          Number(values.calls ?? 300),
          Number(values.reps ?? 3),
          server.child.pid,
        );
      } finally {
        await server.stop();
      }
    } finally {
      await db.close();
    }
  } finally {
    await pgServer.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(
    `\nload average (1 min) at start ${load0.toFixed(1)}, at end ${loadavg()[0]!.toFixed(1)}; ${((performance.now() - began) / 1000).toFixed(0)} s in all`,
  );
}

if (import.meta.main) await main();
