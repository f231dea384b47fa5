/**
 * The list-filter matrix (issue #32): a caller-supplied filter only narrows the caller's scope. Every list operation,
 * read from the registry, × every principal that may call it × REST, MCP and A2A (test/support/authorization.ts); the
 * answer is a list without any of another organization's objects, or exactly `404 not_found`.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { toolInputSchema, type JsonSchema } from '../../src/orchestrator/json-schema.ts';
import type { AnyTool } from '../../src/orchestrator/tool.ts';
import type { Scope } from '../../src/kernel/principal.ts';
import { restClient } from '../support/rest.ts';
import { a2aClient, runSkill } from '../support/a2a.ts';
import { SURFACES } from '../support/surfaces.ts';
import { buy, buyerWithAgent, merchantShop, must, startWorld, type World } from '../support/buyers.ts';
import { acpClient, createBody } from '../support/acp.ts';
import {
  collectionOf,
  expectedRefusal,
  listOperations,
  namesObject,
  outcomeOf,
  statusOf,
  withAcpVersion,
  type Who,
} from '../support/authorization.ts';

let w: World;
before(async () => {
  // UCP calls name a platform profile the server fetches: the matrix names the server's own, on loopback.
  w = await startWorld({ WEBHOOK_ALLOW_LOOPBACK: 'true' });
});
after(async () => {
  await w?.close();
});

/**
 * Issue #32: a caller-supplied filter may only narrow the caller's scope, never replace it. Every list operation is
 * called by every principal that may call it, on REST, MCP and A2A, with each filter naming another organization's
 * object (one at a time, then all together); the answer must be a list without any of the victim's objects or exactly
 * `404 not_found`. The victim includes a buyer whose e-mail another organization mints a bounded session for.
 */
test(
  'a filter naming another organization’s object only narrows, for every list operation × principal × surface',
  {
    timeout: 600_000,
  },
  async () => {
    // The victim organization: a shop (not discoverable) with an event, pool, tier, a webhook with a delivery and an
    // ACP checkout session; a buyer who bought there through the shop's own session and through her agent (with a card
    // and a permission there); and an order the shop's key made.
    const victim = await merchantShop(w.h);
    const vApi = restClient(w.h.url, victim.apiKey);
    const her = await buyerWithAgent(w, victim);
    const mint = async (api: typeof vApi, merchantId: string) =>
      must(await api.post('/v1/integration/buyer-sessions', { merchantId, email: her.email }), 201).token as string;
    const card = { paymentMethod: 'pm_sandbox_visa' };
    const bought: any[] = [];
    // Her shop session and the shop's key pay with a card; her agent pays with its permission's card.
    const buyers = [
      [await mint(vApi, victim.shopId), card],
      [her.agentToken, {}],
      [victim.apiKey, card],
    ] as const;
    for (const [token, body] of buyers) {
      bought.push(must(await buy(restClient(w.h.url, token), victim.tierId, 1, body), 200));
    }
    const subscription = { merchantId: victim.shopId, url: 'https://hooks.example.com/x', events: ['order.completed'] };
    const hook = must(await vApi.post('/v1/integration/webhooks', subscription), 201);
    const delivery = must(await vApi.post(`/v1/integration/webhooks/${hook.id}/test`, {}), 201);
    const acp = acpClient(w.h, victim.apiKey);
    const checkout = must(await acp.post('/checkout_sessions', createBody(victim.tierId, { currency: 'eur' })), 201);
    type Issued = { id: string; code: string; signedCode: string };
    const victimIds = new Set<string>(
      [
        ...[victim.organizationId, victim.shopId, victim.eventId, victim.poolId, victim.tierId, victim.ownerId],
        ...[hook.id, delivery.id, checkout.id, her.agentId, her.instrumentId, her.permission.id],
        ...bought.flatMap((b) => [b.order.id, b.reservation.id, b.payment.id]),
        ...bought.flatMap((b) => b.order.tickets.flatMap((t: Issued) => [t.id, t.code, t.signedCode])),
      ].filter((x): x is string => typeof x === 'string'),
    );
    const [first] = bought;
    const byField: Record<string, string> = {
      ...{ merchantid: victim.shopId, shopid: victim.shopId, eventid: victim.eventId, poolid: victim.poolId },
      ...{ tierid: victim.tierId, orderid: first.order.id, reservationid: first.reservation.id },
      ...{ paymentid: first.payment.id },
      ...{ agentid: her.agentId, instrumentid: her.instrumentId, webhookid: hook.id, deliveryid: delivery.id },
      ...{ organizationid: victim.organizationId, userid: victim.ownerId },
    };
    const byCollection: Record<string, string> = {
      ...{ shops: victim.shopId, merchants: victim.shopId, events: victim.eventId, pools: victim.poolId },
      ...{
        tiers: victim.tierId,
        orders: first.order.id,
        payments: first.payment.id,
        reservations: first.reservation.id,
      },
      ...{ webhooks: hook.id, agents: her.agentId, instruments: her.instrumentId, checkout_sessions: checkout.id },
    };
    const idFor = (tool: AnyTool, field: string): string =>
      field === 'id'
        ? (byCollection[collectionOf(tool) ?? ''] ?? 'id_missing')
        : (byField[field.toLowerCase()] ?? `${field}_missing`);

    // The callers, from another organization or other people; a bounded session another organization mints for HER
    // e-mail is the case of issue #32 (the same buyer, but only at that organization's shop).
    const attacker = await merchantShop(w.h);
    const other = await buyerWithAgent(w, attacker);
    const consoleUser = (role: 'owner' | 'integrator') => {
      const claims = { typ: 'console', sub: attacker.ownerId, org: attacker.organizationId, role };
      return w.h.app.authenticator.sign(claims as never, 3600);
    };
    const scopes: Scope[] = ['merchant:read', 'merchant:write', 'merchant:admin'];
    const bounded = await mint(attacker.api, attacker.shopId);
    const callers: Who[] = [
      { name: 'no credential', token: undefined, kind: 'invalid' },
      { name: 'api key', token: attacker.apiKey, kind: 'api_key', scopes },
      { name: 'console owner', token: await consoleUser('owner'), kind: 'console_user', role: 'owner' },
      { name: 'console integrator', token: await consoleUser('integrator'), kind: 'console_user', role: 'integrator' },
      { name: 'bounded session of another organization for her e-mail', token: bounded, kind: 'buyer', bounded: true },
      { name: 'full buyer (another person)', token: other.session, kind: 'buyer' },
      { name: 'agent (another person’s)', token: other.agentToken, kind: 'agent' },
    ];

    const ops = listOperations();
    for (const name of [
      'list_orders',
      'list_my_tickets',
      'list_pools',
      'list_permissions',
      'list_webhook_deliveries',
    ]) {
      assert.ok(
        ops.some((t) => t.name === name),
        `${name} is a list operation`,
      );
    }
    /** The inputs to try: the required fields (ids naming the victim's), then each object filter alone, then all. */
    const inputsOf = (tool: AnyTool): Record<string, unknown>[] => {
      const schema = toolInputSchema(tool);
      const props = (schema.properties ?? {}) as Record<string, JsonSchema>;
      const fill = (name: string, p: JsonSchema): unknown => {
        if (namesObject(name)) return idFor(tool, name);
        if (Array.isArray(p.enum)) return p.enum[0];
        if (p.type === 'integer' || p.type === 'number') return 1;
        if (p.format === 'uri') return `${w.h.url}/.well-known/ucp`;
        if (p.type === 'array') return [fill(name, (p.items ?? {}) as JsonSchema)];
        if (p.type !== 'object') return 'x';
        const inner = (p.properties ?? {}) as Record<string, JsonSchema>;
        return Object.fromEntries(((p.required ?? []) as string[]).map((k) => [k, fill(k, inner[k] ?? {})]));
      };
      const required = (schema.required ?? []) as string[];
      const base = withAcpVersion(Object.fromEntries(required.map((k) => [k, fill(k, props[k] ?? {})])));
      const filters = Object.keys(props).filter((k) => namesObject(k) && !(k in base));
      const inputs = [base, ...filters.map((k) => ({ ...base, [k]: idFor(tool, k) }))];
      if (filters.length > 1) inputs.push({ ...base, ...Object.fromEntries(filters.map((k) => [k, idFor(tool, k)])) });
      return inputs;
    };

    let calls = 0;
    let naming = 0;
    const failures: string[] = [];
    for (const surface of SURFACES) {
      for (const who of callers) {
        if (who.token === undefined && !surface.anonymous) continue; // /mcp over HTTP answers 401 (test/oauth/)
        const conn = await surface.connect(w.h, who.token);
        try {
          for (const tool of ops) {
            if (expectedRefusal(tool, who) !== undefined) continue; // the refusal itself is the matrix above's
            for (const input of inputsOf(tool)) {
              const out = await outcomeOf(conn.call(tool.name, input));
              calls++;
              if (Object.values(input).some((v) => typeof v === 'string' && victimIds.has(v))) naming++;
              const where = `${surface.name} | ${who.name} | ${tool.name} ${JSON.stringify(input)} → ${statusOf(out)}`;
              if (out.ok) {
                const text = JSON.stringify(out.output);
                const leaked = [...victimIds].filter((id) => text.includes(id));
                if (leaked.length) failures.push(`${where}: answers the victim's ${leaked.slice(0, 4).join(', ')}`);
              } else if (out.code !== 'not_found' || statusOf(out) !== 404) {
                const error = JSON.stringify(out.error).slice(0, 200);
                failures.push(`${where}: must be a list without the victim's objects or 404 not_found (${error})`);
              }
            }
          }
        } finally {
          await conn.done();
        }
      }
    }
    // A2A's own list (ListTasks) and read (GetTask), filtered by the victim's task and context: none of it is listed.
    const made = await runSkill(await a2aClient(w.h, victim.apiKey), 'create_event', {
      merchantId: victim.shopId,
      title: 'Tasked',
      startsAt: '2030-01-01T20:00:00Z',
    });
    assert.ok(made.ok && made.task, JSON.stringify(made));
    const task = made.task;
    victimIds.add(task.id);
    victimIds.add(task.contextId);
    const A2A_VERSION = { 'a2a-version': '1.0' };
    const rpc = (token: string | undefined, method: string, params: Record<string, unknown>) =>
      restClient(w.h.url, token).post('/a2a/jsonrpc', { jsonrpc: '2.0', id: 1, method, params }, A2A_VERSION);
    const own = await rpc(victim.apiKey, 'ListTasks', { contextId: task.contextId });
    assert.deepEqual(
      own.body.result?.tasks?.map((t: { id: string }) => t.id),
      [task.id],
      JSON.stringify(own.body),
    );
    for (const who of callers) {
      const listed = await rpc(who.token, 'ListTasks', { contextId: task.contextId, includeArtifacts: true });
      calls++;
      const text = JSON.stringify(listed.body);
      const leaked = [...victimIds].filter((id) => id !== task.contextId && text.includes(id));
      const where = `a2a ListTasks | ${who.name}`;
      if (leaked.length || listed.body?.result?.tasks?.length) failures.push(`${where}: ${text.slice(0, 200)}`);
      const read = await rpc(who.token, 'GetTask', { id: task.id });
      calls++;
      if (read.body?.result) failures.push(`a2a GetTask | ${who.name}: ${JSON.stringify(read.body).slice(0, 200)}`);
    }
    assert.deepEqual(failures, [], `${failures.length} of ${calls} list calls failed`);
    const shape = `${ops.length} list operations × ${callers.length} principals × 3 surfaces`;
    console.log(`list filter matrix: ${calls} calls (${naming} naming another organization's object), ${shape}`);
    assert.ok(naming > 100, `only ${naming} list calls named another organization's object`);
  },
);
