/**
 * The authorization matrix (issue #10): every tool in the registry × every principal kind × REST, MCP and A2A. The
 * expected refusal is derived from each tool's `auth` declaration (independently of src/orchestrator/authorize.ts);
 * inputs name another organization's real objects wherever the schema takes an id. The test fails on any 5xx, on an
 * error without `{ code, message }`, on a refusal other than the declared one, on any 2xx for a call that names another
 * organization's object, and on any other answer to such a call than exactly `404 not_found` (the same as a missing
 * object: a 403, a 409 or a validation refusal would tell the object exists, or hide the ownership check). Which object
 * an `id` names is read from the tool's REST path (`/shops/{id}`, `/tiers/{id}`, …). A new tool joins by itself: it is
 * read from the registry (a tool whose minimal input is refused as invalid needs a line in VALID). The list filters'
 * matrix (issue #32) is authorization-lists.test.ts.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { toolInputSchema, type JsonSchema } from '../../src/orchestrator/json-schema.ts';
import type { AnyTool } from '../../src/orchestrator/tool.ts';
import { TOOLS } from '../../src/tools/index.ts';
import type { Outcome } from '../support/outcome.ts';
import { SURFACES } from '../support/surfaces.ts';
import { restClient } from '../support/rest.ts';
import { buyerWithAgent, key, merchantShop, must, newEmail, startWorld, type World } from '../support/buyers.ts';
import { acpClient, completeBody, createBody } from '../support/acp.ts';
import {
  collectionOf,
  expectedRefusal,
  mcpRefusal,
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
