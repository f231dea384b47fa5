/**
 * Each caller sees the tools it may call: for every kind of principal, MCP tools/list (in memory and over Streamable
 * HTTP) and the A2A extended card list exactly the tools the orchestrator lets it call, no more and no less.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { a2aClient } from '../support/a2a.ts';
import { mcpHttp, mcpInMemory } from '../support/mcp.ts';
import { restClient } from '../support/rest.ts';
import { createAgent, merchantShop, must, newEmail, signIn, startWorld, type World } from '../support/buyers.ts';

let w: World;
before(async () => {
  w = await startWorld();
});
after(async () => {
  await w?.close();
});

const AUTH_REFUSALS = new Set(['unauthenticated', 'forbidden', 'insufficient_scope']);

/**
 * The tools the orchestrator lets `token` call: every tool whose call is not refused by authentication or
 * authorization.
 */
async function callable(token: string | undefined): Promise<string[]> {
  const names: string[] = [];
  for (const tool of w.h.app.orchestrator.tools) {
    // Authorization runs before validation, so an empty input tells "may not call" from "called with a bad input".
    const r = await w.h.app.orchestrator.invoke({
      tool: tool.name,
      input: { __probe: true },
      credential: token,
      request: { surface: 'internal' },
    });
    if (r.ok || !AUTH_REFUSALS.has(r.error.code)) names.push(tool.name);
  }
  return names.sort();
}

/** `http` is null when `/mcp` refused the caller with 401 (no valid bearer: MCP authorization, test/oauth/). */
async function listed(token: string | undefined): Promise<{ mcp: string[]; http: string[] | null; a2a: string[] }> {
  const inMemory = await mcpInMemory(w.h, token);
  const http = await mcpHttp(w.h, token).catch((err: Error) => {
    assert.match(err.message, /401|Unauthorized/i);
    return undefined;
  });
  try {
    const names = async (c: typeof inMemory) => (await c.listTools()).tools.map((t) => t.name).sort();
    const card = await (await a2aClient(w.h, token)).getAgentCard();
    return {
      mcp: await names(inMemory),
      http: http ? await names(http) : null,
      a2a: card.skills.map((s) => s.id).sort(),
    };
  } finally {
    await inMemory.close();
    await http?.close();
  }
}

test('for every kind of principal the MCP and A2A tool lists equal the tools it may call and is listed', async () => {
  const m = await merchantShop(w.h);
  const key = async (scopes: string[]) => (await w.h.merchant(scopes as never)).apiKey;
  const sign = (claims: Record<string, unknown>) => w.h.app.authenticator.sign(claims as never, 3600);
  const integratorId = `usr_${randomUUID().replace(/-/g, '').slice(0, 20)}`;
  await w.h.db.execute('insert into users (id, email, name, is_staff, created_at) values (?, ?, null, false, now())', [
    integratorId,
    `${integratorId}@example.test`,
  ]);
  await w.h.db.execute(
    `insert into memberships (user_id, organization_id, role, invited_by, created_at) values (?, ?, 'integrator', ?, now())`,
    [integratorId, m.organizationId, m.ownerId],
  );
  const email = newEmail();
  const full = await signIn(w, email, m.shopId);
  const bounded = must(
    await restClient(w.h.url, m.apiKey).post('/v1/integration/buyer-sessions', {
      merchantId: m.shopId,
      email: newEmail(),
    }),
    201,
  ).token;
  const agent = (await createAgent(w, full, email)).token;
  const principals: Record<string, string | undefined> = {
    anonymous: undefined,
    'a bad credential': 'tsk_not_a_key',
    'API key merchant:read': await key(['merchant:read']),
    'API key merchant:read+write': await key(['merchant:read', 'merchant:write']),
    'API key read+write+admin': await key(['merchant:read', 'merchant:write', 'merchant:admin']),
    'API key mandates:attest': await key(['mandates:attest']),
    'console owner': await sign({ typ: 'console', sub: m.ownerId, org: m.organizationId, role: 'owner' }),
    'console integrator': await sign({ typ: 'console', sub: integratorId, org: m.organizationId, role: 'integrator' }),
    staff: await w.h.staffToken(),
    'bounded buyer session': bounded,
    'full buyer session': full,
    agent,
  };
  const kinds: Record<string, string> = {
    anonymous: 'anonymous',
    'a bad credential': 'anonymous',
    staff: 'staff',
    agent: 'agent',
    'bounded buyer session': 'buyer',
    'full buyer session': 'buyer',
    'console owner': 'console_user',
    'console integrator': 'console_user',
  };
  const seen = new Map<string, string[]>();
  const callableBy = new Map<string, string[]>();
  for (const [who, token] of Object.entries(principals)) {
    const calls = await callable(token);
    callableBy.set(who, calls);
    // Listed: what it may call and uses for its job (auth.listed, by principal kind); the rest stays callable.
    const kind = kinds[who] ?? 'api_key';
    const may = calls.filter((name) => {
      const listedFor = w.h.app.orchestrator.get(name)!.auth.listed;
      return !listedFor || listedFor.includes(kind as never);
    });
    const lists = await listed(token);
    assert.deepEqual(lists.mcp, may, `${who}: MCP in memory`);
    // Over HTTP a caller without a valid credential is answered 401 instead: it must authorize first.
    assert.deepEqual(
      lists.http,
      who === 'anonymous' || who === 'a bad credential' ? null : may,
      `${who}: MCP over HTTP`,
    );
    assert.deepEqual(lists.a2a, may, `${who}: A2A extended card`);
    seen.set(who, may);
  }
  const publicTools = w.h.app.orchestrator.tools
    .filter((t) => t.auth.public)
    .map((t) => t.name)
    .sort();
  assert.deepEqual(seen.get('anonymous'), publicTools);
  assert.deepEqual(seen.get('a bad credential'), publicTools);
  const agentTools = seen.get('agent')!;
  for (const name of [
    'get_event',
    'quote',
    'reserve',
    'confirm',
    'get_order',
    'purchase_initiate',
    'verify_signed_mandate',
  ])
    assert.ok(agentTools.includes(name), name);
  for (const name of ['create_tier', 'list_pools', 'create_api_key', 'grant_permission'])
    assert.ok(!agentTools.includes(name), name);
  // An agent that buys is not shown sign-ins, team invitations or the ACP tools, though it may still call them.
  const unlisted = [
    'request_console_sign_in_link',
    'complete_console_sign_in',
    'accept_team_invitation',
    'request_sign_in_link',
    'complete_sign_in',
    'create_checkout_session',
    'complete_checkout_session',
    'delegate_payment',
    'get_acp_discovery',
    'get_ticket_keys',
  ];
  for (const name of unlisted) {
    assert.ok(!agentTools.includes(name), `${name} is not listed to an agent`);
    assert.ok(callableBy.get('agent')!.includes(name), `${name} stays callable by an agent`);
  }
  assert.ok(seen.get('API key read+write+admin')!.includes('create_checkout_session'));
  assert.ok(!seen.get('full buyer session')!.includes('request_sign_in_link'));
  assert.ok(seen.get('API key merchant:read')!.length < seen.get('API key read+write+admin')!.length);
  assert.ok(!seen.get('console integrator')!.includes('withdraw_attested_permission'));
});
