/**
 * One way to call a tool on every public surface (REST, MCP in-memory, MCP HTTP, A2A), so a behaviour
 * test states its assertions once and runs them over each surface.
 */
import assert from 'node:assert/strict';
import { TOOLS } from '../../src/tools/index.ts';
import { a2aClient, runSkill } from './a2a.ts';
import type { Harness } from './harness.ts';
import { callTool, mcpHttp, mcpInMemory } from './mcp.ts';
import type { Outcome } from './outcome.ts';
import { restClient } from './rest.ts';

export interface CallOptions {
  idempotencyKey?: string;
}

export type Caller = (tool: string, input?: Record<string, unknown>, opts?: CallOptions) => Promise<Outcome>;

export interface Surface {
  name: string;
  /**
   * Whether a caller without a credential reaches the tools here. `/mcp` over HTTP is a protected resource (MCP
   * authorization): without a valid bearer it answers 401 (test/oauth/); the public tools stay reachable elsewhere.
   */
  anonymous: boolean;
  /** A caller authenticated with `token` (anonymous when undefined). Close it with `done()`. */
  connect(h: Harness, token?: string): Promise<{ call: Caller; done: () => Promise<void> }>;
}

/** Calls a tool over REST using its declared method and path (path parameters filled from the input). */
export function restCaller(h: Harness, token?: string): Caller {
  const api = restClient(h.url, token);
  return async (name, input = {}, opts = {}) => {
    const tool = TOOLS.find((t) => t.name === name);
    if (!tool) throw new Error(`no tool ${name}`);
    const rest: Record<string, unknown> = { ...input };
    const path = tool.http.path.replace(/\{(\w+)\}/g, (_, key: string) => {
      const v = rest[key];
      delete rest[key];
      return encodeURIComponent(String(v));
    });
    const headers: Record<string, string> = opts.idempotencyKey ? { 'idempotency-key': opts.idempotencyKey } : {};
    let res;
    if (tool.http.method === 'GET' || tool.http.method === 'DELETE') {
      const qs = new URLSearchParams();
      for (const [k, v] of Object.entries(rest)) if (v !== undefined) qs.set(k, String(v as string | number | boolean));
      const q = qs.toString();
      res = await api.call(tool.http.method, q ? `${path}?${q}` : path, undefined, headers);
    } else {
      res = await api.call(tool.http.method, path, rest, headers);
    }
    if (res.status < 400)
      return {
        ok: true,
        output: res.body,
        replayed: res.headers.get('idempotent-replayed') === 'true',
        status: res.status,
      };
    return { ok: false, code: res.body?.code, message: res.body?.message, error: res.body, status: res.status };
  };
}

export const SURFACES: readonly Surface[] = [
  {
    name: 'rest',
    anonymous: true,
    connect: async (h, token) => ({ call: restCaller(h, token), done: async () => undefined }),
  },
  {
    name: 'mcp in-memory',
    anonymous: true,
    connect: async (h, token) => {
      const client = await mcpInMemory(h, token);
      return { call: (t, i = {}, o = {}) => callTool(client, t, i, o), done: () => client.close() };
    },
  },
  {
    name: 'mcp http',
    anonymous: false,
    connect: async (h, token) => {
      const client = await mcpHttp(h, token);
      // `/mcp` answers a credential that stopped being valid with HTTP 401 (MCP authorization), which the SDK client
      // throws: that is this surface's `unauthenticated` refusal.
      const call: Caller = (t, i = {}, o = {}) =>
        callTool(client, t, i, o).catch((err: { code?: unknown; message?: string }) => {
          if (err.code === 401)
            return {
              ok: false as const,
              code: 'unauthenticated',
              message: err.message ?? '',
              error: err,
              replayed: false,
            };
          // Past a budget or refused for load, `/mcp` answers HTTP 429 with the REST error body, which the client
          // throws.
          if (err.code === 429) {
            const error = JSON.parse(/\{.*\}/s.exec(err.message ?? '')?.[0] ?? '{}');
            return {
              ok: false as const,
              code: error.code,
              message: error.message,
              error,
              status: 429,
              replayed: false,
            };
          }
          throw err;
        });
      return { call, done: () => client.close() };
    },
  },
  {
    name: 'a2a',
    anonymous: true,
    connect: async (h, token) => {
      const client = await a2aClient(h, token);
      return { call: (t, i = {}, o = {}) => runSkill(client, t, i, o.idempotencyKey), done: async () => undefined };
    },
  },
];

/** Creates an event, a pool of 10 and a restricted tier in `shopId` through `call`, asserting the saved tier. */
export async function assertCreateTierWithRestrictions(call: Caller, shopId: string): Promise<void> {
  const event = await call('create_event', { merchantId: shopId, title: 'Gig', startsAt: '2030-05-01T19:00:00Z' });
  assert.ok(event.ok, JSON.stringify(event));
  const pool = await call('create_pool', { merchantId: shopId, eventId: event.output.id, capacity: 10 });
  assert.ok(pool.ok, JSON.stringify(pool));
  const tier = await call('create_tier', {
    eventId: event.output.id,
    poolId: pool.output.id,
    name: 'General admission',
    priceMinor: 4500,
    maxQtyPerPurchase: 4,
    allowedGeos: ['DE', 'AT'],
    allowedSchemes: ['visa'],
  });
  assert.ok(tier.ok, JSON.stringify(tier));
  assert.equal(tier.output.name, 'General admission');
  assert.equal(tier.output.maxQtyPerPurchase, 4);
  assert.deepEqual(tier.output.allowedGeos, ['DE', 'AT']);
  assert.equal(tier.output.availableCount, 10);
}
