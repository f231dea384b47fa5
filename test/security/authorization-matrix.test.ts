/**
 * The authorization matrix (issue #10): every tool in the registry × every principal kind × REST, MCP and A2A. The
 * expected refusal is derived from each tool's `auth` declaration (independently of src/orchestrator/authorize.ts);
 * inputs name another organization's real objects wherever the schema takes an id. The test fails on any 5xx, on an
 * error without `{ code, message }`, on a refusal other than the declared one, on any 2xx for a call that names
 * another organization's object, and on any other answer to such a call than exactly `404 not_found` (the same as a
 * missing object: a 403, a 409 or a validation refusal would tell the object exists, or hide the ownership check). Which
 * object an `id` names is read from the tool's REST path (`/shops/{id}`, `/tiers/{id}`, …). A new tool joins by
 * itself: it is read from the registry (a tool whose minimal input is refused as invalid needs a line in VALID).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ERRORS, type ErrorCode } from '../../src/kernel/errors.ts';
import { toolInputSchema, type JsonSchema } from '../../src/orchestrator/json-schema.ts';
import type { AnyTool } from '../../src/orchestrator/tool.ts';
import type { Scope } from '../../src/kernel/principal.ts';
import { TOOLS } from '../../src/tools/index.ts';
import { SURFACES, type Outcome } from '../support/surfaces.ts';
import { restClient } from '../support/rest.ts';
import { buyerWithAgent, key, merchantShop, must, newEmail, startWorld, type World } from '../buyers/fixtures.ts';
import { ACP_VERSION, acpClient, completeBody, createBody } from '../acp/support.ts';

let w: World;
before(async () => {
  w = await startWorld();
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
  configure_payment_provider: () => ({ provider: 'stripe', publishableKey: 'pk_test_matrix', secretKey: 'sk_test_matrix', webhookSecret: 'whsec_matrix' }),
  update_checkout_session: () => ({ payload: { buyer: { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.test' } } }),
  complete_checkout_session: () => ({ payload: completeBody('vt_matrix') }),
};
/** ACP tools carry the protocol version in `meta` (an unsupported one is refused before anything is looked up). */
const withAcpVersion = (input: Record<string, unknown>): Record<string, unknown> =>
  input.meta && typeof input.meta === 'object' ? { ...input, meta: { ...input.meta, api_version: ACP_VERSION } } : input;

/** The REST collection an `{id}` belongs to (`/v1/integration/tiers/{id}/retire` → `tiers`). */
const collectionOf = (tool: AnyTool): string | undefined => /\/([a-z_-]+)\/\{id\}/.exec(tool.http.path)?.[1];

const statusOf = (o: Outcome): number => (o.ok ? (o.status ?? 200) : (o.status ?? ERRORS[o.code as ErrorCode]?.status ?? 0));

test('every tool × every principal × REST, MCP and A2A answers as its auth declaration and ownership say', { timeout: 600_000 }, async () => {
  // The victim organization and its objects: a shop with an event, pool and tier, a paid order and a held reservation.
  const victim = await merchantShop(w.h);
  const vApi = restClient(w.h.url, victim.apiKey);
  const q = must(await vApi.post('/v1/ticketing/quotes', { tierId: victim.tierId, quantity: 1 }), 201);
  const paid = must(await vApi.post(`/v1/ticketing/reservations/${must(await vApi.post('/v1/ticketing/reservations', { quoteId: q.quoteId }, key()), 201).reservation.id}/confirm`, { paymentMethod: 'pm_sandbox_visa' }, key()), 200);
  const q2 = must(await vApi.post('/v1/ticketing/quotes', { tierId: victim.tierId, quantity: 1 }), 201);
  const held = must(await vApi.post('/v1/ticketing/reservations', { quoteId: q2.quoteId }, key()), 201);
  const hook = must(await vApi.post('/v1/integration/webhooks', { merchantId: victim.shopId, url: 'https://hooks.example.com/x', events: ['order.completed'] }), 201);
  const checkout = must(await acpClient(w.h, victim.apiKey).post('/checkout_sessions', createBody(victim.tierId, { currency: 'eur' })), 201);
  const ownerToken = await w.h.app.authenticator.sign({ typ: 'console', sub: victim.ownerId, org: victim.organizationId, role: 'owner' }, 3600);
  const invitation = must(await restClient(w.h.url, ownerToken).post('/v1/console/team/invitations', { email: newEmail(), role: 'integrator' }), 201);
  const [victimKey] = await w.h.db.execute<{ id: string }>('select id from api_keys where organization_id = ?', [victim.organizationId]);
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
  };
  const victimIds = new Set<string>([...Object.values(byCollection), q2.quoteId, paid.reservation.id, victim.ownerId]);

  // The callers, each from an organization of its own.
  const attacker = await merchantShop(w.h);
  const s = await buyerWithAgent(w, attacker);
  const revoked = await w.h.merchant();
  await w.h.db.execute('update api_keys set revoked_at = now() where organization_id = ?', [revoked.organizationId]);
  const sign = (claims: Record<string, unknown>) => w.h.app.authenticator.sign(claims as never, 3600);
  const bounded = must(await restClient(w.h.url, attacker.apiKey).post('/v1/integration/buyer-sessions', { merchantId: attacker.shopId, email: newEmail() }), 201).token;
  const callers: Who[] = [
    { name: 'no credential', token: undefined, kind: 'invalid' },
    { name: 'junk bearer', token: 'junk-bearer-value', kind: 'invalid' },
    { name: 'revoked key', token: revoked.apiKey, kind: 'invalid' },
    ...(['merchant:read', 'merchant:write', 'merchant:admin', 'mandates:attest'] as const).map((scope) => ({ name: `key ${scope}`, token: '', kind: 'api_key' as const, scopes: [scope] })),
    { name: 'console owner', token: await sign({ typ: 'console', sub: attacker.ownerId, org: attacker.organizationId, role: 'owner' }), kind: 'console_user', role: 'owner' },
    { name: 'console integrator', token: await sign({ typ: 'console', sub: attacker.ownerId, org: attacker.organizationId, role: 'integrator' }), kind: 'console_user', role: 'integrator' },
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
    if (Array.isArray(s.anyOf)) return valueOf(tool, name, (s.anyOf as JsonSchema[]).find((b) => b.type !== 'null') ?? {});
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
        if (s.format === 'uri') return 'https://hooks.example.com/x';
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
  const accepted = (tool: AnyTool, who: Who) => (tool.name === 'quote' && who.kind === 'agent') || (who.kind === 'staff' && !tool.auth.public && tool.auth.principals.every((p) => p === 'staff'));
  let crossOrg = 0;
  for (const surface of SURFACES.filter((x) => x.name !== 'mcp http')) {
    for (const who of callers) {
      let conn;
      try {
        conn = await surface.connect(w.h, who.token);
      } catch (err) {
        // MCP refuses a session whose bearer fails before any tool is listed: a refusal of every call at once.
        if (who.kind === 'invalid' && (err as { data?: { code?: string } }).data?.code === 'unauthenticated') continue;
        throw err;
      }
      try {
        for (const tool of TOOLS) {
          const input = withAcpVersion({ ...(valueOf(tool, 'input', toolInputSchema(tool)) as Record<string, unknown>), ...VALID[tool.name]?.(who) });
          const namesVictim = Object.values(input).some((v) => typeof v === 'string' && victimIds.has(v));
          const out: Outcome = await conn.call(tool.name, input, { idempotencyKey: `matrix-${surface.name}-${calls}` }).catch((err: { data?: { code?: string; message?: string } }) => {
            // MCP answers an authentication or authorization refusal as a JSON-RPC error carrying `{ code, message }`.
            const code = err.data?.code;
            if (typeof code !== 'string' || !(code in ERRORS)) throw err;
            return { ok: false, code, message: String(err.data!.message), error: err.data, status: ERRORS[code as ErrorCode].status };
          });
          calls++;
          const status = statusOf(out);
          const where = `${surface.name} | ${who.name} | ${tool.name} → ${status} ${out.ok ? 'ok' : out.code}`;
          if (!out.ok && (typeof out.code !== 'string' || typeof out.message !== 'string')) failures.push(`${where}: no { code, message }`);
          if (status >= 500) failures.push(`${where}: 5xx`);
          const refusal = expectedRefusal(tool, who);
          if (refusal !== undefined) {
            if (status !== refusal) failures.push(`${where}: expected ${refusal}`);
            continue;
          }
          if (!namesVictim || accepted(tool, who)) continue;
          crossOrg++;
          if (out.ok) failures.push(`${where}: 2xx on another organization's object`);
          else if (status !== 404 || out.code !== 'not_found') failures.push(`${where}: another organization's object must be exactly 404 not_found (${JSON.stringify(out.error).slice(0, 200)})`);
        }
      } finally {
        await conn.done();
      }
    }
  }
  assert.deepEqual(failures, [], `${failures.length} of ${calls} calls failed`);
  console.log(`authorization matrix: ${calls} calls (${crossOrg} naming another organization's object), ${TOOLS.length} tools × ${callers.length} principals × 3 surfaces`);
  assert.ok(crossOrg > 300, `only ${crossOrg} calls reached another organization's objects`);
});
