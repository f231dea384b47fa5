/**
 * The authorization matrix (issue #10): every tool in the registry × every principal kind × REST, MCP and A2A. The
 * expected refusal is derived from each tool's `auth` declaration (independently of src/orchestrator/authorize.ts);
 * inputs name another organization's real objects wherever the schema takes an id. The test fails on any 5xx, on an
 * error without `{ code, message }`, on a refusal other than the declared one, on any 2xx for a call that names another
 * organization's object, and on any other answer to such a call than exactly `404 not_found` (the same as a missing
 * object: a 403, a 409 or a validation refusal would tell the object exists, or hide the ownership check). Which object
 * an `id` names is read from the tool's REST path (`/shops/{id}`, `/tiers/{id}`, …). A new tool joins by itself: it is
 * read from the registry (a tool whose minimal input is refused as invalid needs a line in VALID). The second test
 * (issue #32) calls every list operation with its optional filters naming another organization's objects (and A2A
 * ListTasks/GetTask naming its task): a filter only narrows the caller's scope, so the answer is a list without them or
 * 404 not_found.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ERRORS, type ErrorCode } from '../../src/kernel/errors.ts';
import { toolInputSchema, toolOutputSchema, type JsonSchema } from '../../src/orchestrator/json-schema.ts';
import type { AnyTool } from '../../src/orchestrator/tool.ts';
import type { Scope } from '../../src/kernel/principal.ts';
import { TOOLS } from '../../src/tools/index.ts';
import type { Outcome } from '../support/outcome.ts';
import { SURFACES } from '../support/surfaces.ts';
import { restClient } from '../support/rest.ts';
import { a2aClient, runSkill } from '../support/a2a.ts';
import { buy, buyerWithAgent, key, merchantShop, must, newEmail, startWorld, type World } from '../support/buyers.ts';
import { ACP_VERSION, acpClient, completeBody, createBody } from '../support/acp.ts';

let w: World;
before(async () => {
  // UCP calls name a platform profile the server fetches: the matrix names the server's own, on loopback.
  w = await startWorld({ WEBHOOK_ALLOW_LOOPBACK: 'true' });
});
after(async () => {
  await w?.close();
});

interface Who {
  name: string;
  token: string | undefined;
  /** What the credential is, as the auth declaration sees it; `invalid` = no principal at all. */
  kind: 'invalid' | 'api_key' | 'console_user' | 'staff' | 'buyer' | 'agent';
  scopes?: Scope[];
  role?: 'owner' | 'integrator';
  bounded?: boolean;
}

/** The refusal the tool's `auth` declares for this caller, or undefined when the call may proceed to the handler. */
function expectedRefusal(tool: AnyTool, who: Who): 401 | 403 | undefined {
  const auth = tool.auth;
  if (auth.public) return undefined;
  if (who.kind === 'invalid') return 401;
  if (!auth.principals.includes(who.kind)) return 403;
  if (who.kind === 'api_key' && (auth.scopes ?? []).some((s) => !who.scopes!.includes(s))) return 403;
  if (who.kind === 'console_user' && auth.roles && !auth.roles.includes(who.role!)) return 403;
  if (who.kind === 'buyer' && auth.fullBuyer && who.bounded && !auth.attestedBuyer) return 403;
  return undefined;
}

/**
 * Fields a tool's minimal input needs to pass its own validation, so that a call naming another organization's object
 * reaches the ownership check (a validation refusal would say nothing about it).
 */
const VALID: Record<string, (who: Who) => Record<string, unknown>> = {
  // An agent pays with its permission's card and sends no payment method; every other caller names one.
  confirm: (who) => (who.kind === 'agent' ? {} : { paymentMethod: 'pm_sandbox_visa' }),
  configure_payment_provider: () => ({
    provider: 'stripe',
    publishableKey: 'pk_test_matrix',
    secretKey: 'sk_test_matrix',
    webhookSecret: 'whsec_matrix',
  }),
  update_checkout_session: () => ({
    payload: { buyer: { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.test' } },
  }),
  complete_checkout_session: () => ({ payload: completeBody('vt_matrix') }),
};
/** ACP tools carry the protocol version in `meta` (an unsupported one is refused before anything is looked up). */
const withAcpVersion = (input: Record<string, unknown>): Record<string, unknown> =>
  input.meta && typeof input.meta === 'object'
    ? { ...input, meta: { ...input.meta, api_version: ACP_VERSION } }
    : input;

/** The REST collection an `{id}` belongs to (`/v1/integration/tiers/{id}/retire` → `tiers`). */
const collectionOf = (tool: AnyTool): string | undefined => /\/([a-z_-]+)\/\{id\}/.exec(tool.http.path)?.[1];

const statusOf = (o: Outcome): number =>
  o.ok ? (o.status ?? 200) : (o.status ?? ERRORS[o.code as ErrorCode]?.status ?? 0);

test(
  'every tool × every principal × REST, MCP and A2A answers as its auth declaration and ownership say',
  { timeout: 600_000 },
  async () => {
    // The victim organization and its objects: a shop with an event, pool and tier, a paid order and a held
    // reservation.
    const victim = await merchantShop(w.h);
    const vApi = restClient(w.h.url, victim.apiKey);
    const q = must(await vApi.post('/v1/ticketing/quotes', { tierId: victim.tierId, quantity: 1 }), 201);
    const paid = must(
      await vApi.post(
        `/v1/ticketing/reservations/${must(await vApi.post('/v1/ticketing/reservations', { quoteId: q.quoteId }, key()), 201).reservation.id}/confirm`,
        { paymentMethod: 'pm_sandbox_visa' },
        key(),
      ),
      200,
    );
    const q2 = must(await vApi.post('/v1/ticketing/quotes', { tierId: victim.tierId, quantity: 1 }), 201);
    const held = must(await vApi.post('/v1/ticketing/reservations', { quoteId: q2.quoteId }, key()), 201);
    const hook = must(
      await vApi.post('/v1/integration/webhooks', {
        merchantId: victim.shopId,
        url: 'https://hooks.example.com/x',
        events: ['order.completed'],
      }),
      201,
    );
    const checkout = must(
      await acpClient(w.h, victim.apiKey).post('/checkout_sessions', createBody(victim.tierId, { currency: 'eur' })),
      201,
    );
    const ownerToken = await w.h.app.authenticator.sign(
      { typ: 'console', sub: victim.ownerId, org: victim.organizationId, role: 'owner' },
      3600,
    );
    const invitation = must(
      await restClient(w.h.url, ownerToken).post('/v1/console/team/invitations', {
        email: newEmail(),
        role: 'integrator',
      }),
      201,
    );
    // A waiting-list entry: a pool of one place, held, so a person may join its tier's line.
    const scarcePool = must(
      await vApi.post('/v1/integration/pools', { merchantId: victim.shopId, eventId: victim.eventId, capacity: 1 }),
      201,
    );
    const scarce = { eventId: victim.eventId, poolId: scarcePool.id, name: 'Scarce', priceMinor: 100 };
    const scarceTier = must(await vApi.post('/v1/integration/tiers', scarce), 201).id as string;
    const q3 = must(await vApi.post('/v1/ticketing/quotes', { tierId: scarceTier, quantity: 1 }), 201);
    must(await vApi.post('/v1/ticketing/reservations', { quoteId: q3.quoteId }, key()), 201);
    const joined = { tierId: scarceTier, quantity: 1, email: newEmail() };
    const entry = must(await vApi.post('/v1/ticketing/waiting-list', joined), 200).id as string;
    const [victimKey] = await w.h.db.execute<{ id: string }>('select id from api_keys where organization_id = ?', [
      victim.organizationId,
    ]);
    const byCollection: Record<string, string> = {
      shops: victim.shopId,
      merchants: victim.shopId,
      events: victim.eventId,
      pools: victim.poolId,
      tiers: victim.tierId,
      reservations: held.reservation.id,
      orders: paid.order.id,
      payments: paid.payment.id,
      webhooks: hook.id,
      checkout_sessions: checkout.id,
      'api-keys': victimKey!.id,
      invitations: invitation.id,
      organizations: victim.organizationId,
      'waiting-list': entry,
    };
    const victimIds = new Set<string>([
      ...Object.values(byCollection),
      q2.quoteId,
      paid.reservation.id,
      victim.ownerId,
    ]);

    // The callers, each from an organization of its own.
    const attacker = await merchantShop(w.h);
    const s = await buyerWithAgent(w, attacker);
    const revoked = await w.h.merchant();
    await w.h.db.execute('update api_keys set revoked_at = now() where organization_id = ?', [revoked.organizationId]);
    const sign = (claims: Record<string, unknown>) => w.h.app.authenticator.sign(claims as never, 3600);
    const bounded = must(
      await restClient(w.h.url, attacker.apiKey).post('/v1/integration/buyer-sessions', {
        merchantId: attacker.shopId,
        email: newEmail(),
      }),
      201,
    ).token;
    const callers: Who[] = [
      { name: 'no credential', token: undefined, kind: 'invalid' },
      { name: 'junk bearer', token: 'junk-bearer-value', kind: 'invalid' },
      { name: 'revoked key', token: revoked.apiKey, kind: 'invalid' },
      ...(['merchant:read', 'merchant:write', 'merchant:admin', 'mandates:attest'] as const).map((scope) => ({
        name: `key ${scope}`,
        token: '',
        kind: 'api_key' as const,
        scopes: [scope],
      })),
      {
        name: 'console owner',
        token: await sign({ typ: 'console', sub: attacker.ownerId, org: attacker.organizationId, role: 'owner' }),
        kind: 'console_user',
        role: 'owner',
      },
      {
        name: 'console integrator',
        token: await sign({ typ: 'console', sub: attacker.ownerId, org: attacker.organizationId, role: 'integrator' }),
        kind: 'console_user',
        role: 'integrator',
      },
      { name: 'staff', token: await w.h.staffToken(), kind: 'staff' },
      { name: 'bounded buyer', token: bounded, kind: 'buyer', bounded: true },
      { name: 'full buyer', token: s.session, kind: 'buyer' },
      { name: 'agent', token: s.agentToken, kind: 'agent' },
    ];
    for (const c of callers) if (c.kind === 'api_key') c.token = (await w.h.merchant(c.scopes!)).apiKey;

    /** A minimal input from the schema: every required field, ids naming the victim's objects. */
    const idFor = (tool: AnyTool, field: string): string => {
      const f = field.toLowerCase();
      if (f === 'merchantid' || f === 'shopid') return victim.shopId;
      if (f === 'eventid') return victim.eventId;
      if (f === 'poolid') return victim.poolId;
      if (f === 'tierid') return victim.tierId;
      if (f === 'quoteid') return q2.quoteId;
      if (f === 'reservationid') return held.reservation.id;
      if (f === 'orderid') return paid.order.id;
      if (f === 'paymentid') return paid.payment.id;
      if (f === 'userid') return victim.ownerId;
      if (f === 'organizationid') return victim.organizationId;
      if (f !== 'id') return `${f}_missing`;
      return byCollection[collectionOf(tool) ?? ''] ?? 'id_missing';
    };
    const valueOf = (tool: AnyTool, name: string, s: JsonSchema): unknown => {
      if (Array.isArray(s.anyOf))
        return valueOf(tool, name, (s.anyOf as JsonSchema[]).find((b) => b.type !== 'null') ?? {});
      if (Array.isArray(s.enum)) return s.enum[0];
      switch (s.type) {
        case 'object': {
          const props = (s.properties ?? {}) as Record<string, JsonSchema>;
          return Object.fromEntries(((s.required ?? []) as string[]).map((k) => [k, valueOf(tool, k, props[k] ?? {})]));
        }
        case 'array':
          return s.items ? [valueOf(tool, name, s.items as JsonSchema)] : [];
        case 'integer':
        case 'number':
          return typeof s.minimum === 'number' ? Math.max(s.minimum, 1) : 1;
        case 'boolean':
          return false;
        case 'string':
          if (s.format === 'date-time') return '2030-01-01T20:00:00Z';
          if (s.format === 'email') return 'someone@example.test';
          // A UCP platform profile: the server's own, on loopback (see `before`); other URLs: one never fetched.
          if (s.format === 'uri')
            return name === 'profile' ? `${w.h.url}/.well-known/ucp` : 'https://hooks.example.com/x';
          return /id$/i.test(name) ? idFor(tool, name) : 'x'.repeat(Math.max(1, Number(s.minLength ?? 1)));
        default:
          return 'x';
      }
    };

    let calls = 0;
    const failures: string[] = [];
    // Known and accepted: an agent may quote any tier whose id it knows, so the same quote can later be paid under a
    // network-signed mandate for that merchant (docs/buyers-and-agents.md); a quote holds nothing and returns a price.
    // Staff tools act on any organization by design (set_organization_attestation).
    const accepted = (tool: AnyTool, who: Who) =>
      (tool.name === 'quote' && who.kind === 'agent') ||
      (who.kind === 'staff' && !tool.auth.public && tool.auth.principals.every((p) => p === 'staff'));
    let crossOrg = 0;
    for (const surface of SURFACES) {
      for (const who of callers) {
        let conn;
        try {
          conn = await surface.connect(w.h, who.token);
        } catch (err) {
          // MCP refuses a session whose bearer fails before any tool is listed (over HTTP: 401 to the initialize): a
          // refusal of every call at once.
          const refused = err as { code?: unknown; data?: { code?: string } };
          if (who.kind === 'invalid' && (refused.data?.code === 'unauthenticated' || refused.code === 401)) continue;
          throw err;
        }
        try {
          for (const tool of TOOLS) {
            const input = withAcpVersion({
              ...(valueOf(tool, 'input', toolInputSchema(tool)) as Record<string, unknown>),
              ...VALID[tool.name]?.(who),
            });
            const namesVictim = Object.values(input).some((v) => typeof v === 'string' && victimIds.has(v));
            const out: Outcome = await conn
              .call(tool.name, input, { idempotencyKey: `matrix-${surface.name}-${calls}` })
              .catch(mcpRefusal);
            calls++;
            const status = statusOf(out);
            const where = `${surface.name} | ${who.name} | ${tool.name} → ${status} ${out.ok ? 'ok' : out.code}`;
            if (!out.ok && (typeof out.code !== 'string' || typeof out.message !== 'string'))
              failures.push(`${where}: no { code, message }`);
            if (status >= 500) failures.push(`${where}: 5xx`);
            const refusal = expectedRefusal(tool, who);
            if (refusal !== undefined) {
              if (status !== refusal) failures.push(`${where}: expected ${refusal}`);
              continue;
            }
            if (!namesVictim || accepted(tool, who)) continue;
            crossOrg++;
            if (out.ok) failures.push(`${where}: 2xx on another organization's object`);
            else if (status !== 404 || out.code !== 'not_found')
              failures.push(
                `${where}: another organization's object must be exactly 404 not_found (${JSON.stringify(out.error).slice(0, 200)})`,
              );
          }
        } finally {
          await conn.done();
        }
      }
    }
    assert.deepEqual(failures, [], `${failures.length} of ${calls} calls failed`);
    console.log(
      `authorization matrix: ${calls} calls (${crossOrg} naming another organization's object), ${TOOLS.length} tools × ${callers.length} principals × 3 surfaces`,
    );
    assert.ok(crossOrg > 300, `only ${crossOrg} calls reached another organization's objects`);
  },
);

/** An input field that names an object (`merchantId`, `eventId`, `id`, …), as opposed to a page cursor or a value. */
const namesObject = (field: string): boolean => /(^id$|Id$)/.test(field);

/**
 * The list operations, read from the registry: every read-only tool that is named `list_…`, answers a list (an array
 * at the top of its output) or takes an optional filter naming an object. A new one joins the matrix below by itself.
 */
function listOperations(): AnyTool[] {
  return TOOLS.filter((tool) => {
    if (!tool.annotations.readOnlyHint) return false;
    const input = toolInputSchema(tool);
    const required = new Set((input.required ?? []) as string[]);
    const filters = Object.keys((input.properties ?? {}) as object).filter((k) => namesObject(k) && !required.has(k));
    const output = Object.values((toolOutputSchema(tool).properties ?? {}) as Record<string, JsonSchema>);
    return tool.name.startsWith('list_') || filters.length > 0 || output.some((p) => p.type === 'array');
  });
}

/** Answers an MCP JSON-RPC error carrying `{ code, message }` (how MCP refuses some calls) as a refusal. */
async function outcomeOf(call: Promise<Outcome>): Promise<Outcome> {
  return call.catch(mcpRefusal);
}

/**
 * An MCP JSON-RPC error carrying `{ code, message }` (how MCP refuses some calls, and ACP's MCP binding every ACP
 * error) as a refusal. `delegate_payment`'s ACP codes are a closed enum, so its other refusals travel as
 * `invalid_card` with our code leading the message (`unauthenticated: …`, docs/acp.md): that code is the refusal.
 */
function mcpRefusal(err: { data?: { code?: string; message?: string } }): Outcome {
  let code = err.data?.code;
  const message = String(err.data?.message ?? '');
  const lead = /^([a-z_]+): /.exec(message)?.[1];
  if (code === 'invalid_card' && lead && lead in ERRORS) code = lead;
  if (typeof code !== 'string' || !(code in ERRORS)) throw err;
  return { ok: false, code, message, error: err.data, status: ERRORS[code as ErrorCode].status };
}

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
