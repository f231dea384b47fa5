/**
 * The same tool call over REST, MCP (one client session over Streamable HTTP) and A2A (the SDK client over
 * JSON-RPC), against the same server in the same run, reported as ratios to REST. Run by `npm run bench`.
 */
import { Message, TaskState } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { restClient } from '../test/support/rest.ts';

interface Stats {
  mean: number;
  p50: number;
  p99: number;
}

function stats(ms: number[]): Stats {
  const sorted = [...ms].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
  return { mean: ms.reduce((a, b) => a + b, 0) / ms.length, p50: at(50), p99: at(99) };
}

/** `list_pools` `calls` times on each surface, one at a time, in interleaved rounds so load drift hits all three alike. */
export async function benchSurfaces(url: string, apiKey: string, merchantId: string, calls: number): Promise<void> {
  const rest = restClient(url, apiKey);
  const mcp = new Client({ name: 'bench', version: '0' });
  await mcp.connect(new StreamableHTTPClientTransport(new URL('/mcp', url), { requestInit: { headers: { authorization: `Bearer ${apiKey}` } } }));
  const fetchImpl: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('authorization', `Bearer ${apiKey}`);
    return fetch(input, { ...init, headers });
  };
  const a2a = await new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports: [new JsonRpcTransportFactory({ fetchImpl })] }),
  ).createFromUrl(url);
  const surfaces: Record<string, () => Promise<boolean>> = {
    REST: async () => (await rest.get(`/v1/integration/pools?merchantId=${merchantId}`)).status === 200,
    'MCP (one session)': async () => {
      const r = await mcp.callTool({ name: 'list_pools', arguments: { merchantId } });
      return !r.isError;
    },
    A2A: async () => {
      const message = Message.fromJSON({
        messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ data: { skill: 'list_pools', input: { merchantId } } }],
      });
      const r = await a2a.sendMessage({ tenant: '', configuration: undefined, metadata: undefined, message });
      return 'status' in r && r.status?.state === TaskState.TASK_STATE_COMPLETED;
    },
  };
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(surfaces).map((k) => [k, []]));
  for (const call of Object.values(surfaces)) for (let i = 0; i < 20; i++) await call(); // warm-up
  const rounds = 10;
  for (let round = 0; round < rounds; round++) {
    for (const [name, call] of Object.entries(surfaces)) {
      for (let i = 0; i < Math.ceil(calls / rounds); i++) {
        const t0 = performance.now();
        if (!(await call())) throw new Error(`${name}: list_pools failed`);
        times[name]!.push(performance.now() - t0);
      }
    }
  }
  await mcp.close();
  const base = stats(times.REST!);
  console.log(`\nlist_pools, one call at a time, ${times.REST!.length} calls per surface (same server, same run)`);
  console.log('surface           | mean ms | p50 ms | p99 ms | mean ÷ REST | p50 ÷ REST');
  for (const [name, ms] of Object.entries(times)) {
    const s = stats(ms);
    console.log(
      [name.padEnd(17), s.mean.toFixed(2).padStart(7), s.p50.toFixed(2).padStart(6), s.p99.toFixed(2).padStart(6),
        (s.mean / base.mean).toFixed(2).padStart(11), (s.p50 / base.p50).toFixed(2).padStart(10)].join(' | '),
    );
  }
}
