/**
 * The audit log (issue #34, item 2): every successful write by a console user or an API key is recorded (who, which
 * operation, which ids, when, from which surface and request), read-only through list_audit_log over REST and MCP,
 * scoped to the caller's organization, filtered and paged; failed calls and reads are not recorded, secrets never.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { listOutboxMail } from '../../src/mail/outbox.ts';
import type { Harness } from '../support/harness.ts';
import { callTool, mcpInMemory } from '../support/mcp.ts';
import { restClient } from '../support/rest.ts';
import { must, startSpineHarness } from '../support/spine.ts';

let h: Harness;
let mcp: Client | undefined;
before(async () => {
  h = await startSpineHarness();
});
after(async () => {
  await mcp?.close();
  await h?.close();
});

/** A console session (bearer) for the owner of `organizationId`, through the e-mailed link. */
async function consoleToken(organizationId: string): Promise<{ token: string; email: string; userId: string }> {
  const [row] = await h.db.execute<{ email: string; id: string }>(
    'select u.email, u.id from memberships m join users u on u.id = m.user_id where m.organization_id = ?',
    [organizationId],
  );
  h.clock.advance(1000);
  must(await restClient(h.url).post('/v1/console/sign-in', { email: row!.email }), 202);
  const [mail] = await listOutboxMail(h.db, { to: row!.email, limit: 1 });
  const link = /\/console\/verify#token=([A-Za-z0-9_-]+)/.exec(mail!.text)![1]!;
  const session = must(await restClient(h.url).post('/v1/console/sign-in/complete', { token: link }), 200);
  return { token: session.token, email: row!.email, userId: row!.id };
}

async function keyIdOf(organizationId: string): Promise<{ id: string; name: string }> {
  const [row] = await h.db.execute<{ id: string; name: string }>(
    'select id, name from api_keys where organization_id = ? order by created_at limit 1',
    [organizationId],
  );
  return row!;
}

const startsAt = () => new Date(h.clock.now().getTime() + 30 * 86_400_000).toISOString();

describe('audit log', () => {
  test('writes by an API key (REST, MCP) and by a console user are recorded with their actor; reads and failures not', async () => {
    const m = await h.merchant();
    const key = await keyIdOf(m.organizationId);
    const api = restClient(h.url, m.apiKey);
    const event = must(
      await api.post(
        '/v1/integration/events',
        { merchantId: m.shopId, title: 'Audited', startsAt: startsAt() },
        { 'x-request-id': 'audit-req-1' },
      ),
      201,
    );
    mcp = await mcpInMemory(h, m.apiKey);
    const pool = await callTool(mcp, 'create_pool', { merchantId: m.shopId, eventId: event.id, capacity: 5 });
    assert.ok(pool.ok);
    const failed = await api.post('/v1/integration/events', {
      merchantId: 'shop_nope',
      title: 'X',
      startsAt: startsAt(),
    });
    assert.equal(failed.status, 404);
    must(await api.get(`/v1/integration/pools?merchantId=${m.shopId}`), 200);
    const owner = await consoleToken(m.organizationId);
    const created = must(
      await restClient(h.url, owner.token).post('/v1/console/api-keys', {
        name: 'Box office',
        scopes: ['merchant:read'],
      }),
      201,
    );

    const log = must(await api.get('/v1/console/audit-log'), 200);
    assert.deepEqual(
      log.entries.map((e: any) => e.tool),
      ['create_api_key', 'create_pool', 'create_event'],
      'newest first; the failed write and the read are not recorded',
    );
    const [byConsole, byMcp, byRest] = log.entries;
    assert.deepEqual(
      [byRest.actorKind, byRest.keyId, byRest.keyName, byRest.userId, byRest.email, byRest.surface, byRest.requestId],
      ['api_key', key.id, key.name, m.ownerId, owner.email, 'rest', 'audit-req-1'],
    );
    assert.ok(byRest.targetIds.includes(m.shopId) && byRest.targetIds.includes(event.id), byRest.targetIds);
    assert.ok(Date.parse(byRest.at) <= h.clock.now().getTime(), 'an RFC 3339 instant from the injected clock');
    assert.deepEqual([byMcp.surface, byMcp.keyId], ['mcp', key.id]);
    assert.ok(byMcp.targetIds.includes((pool.output as any).id));
    assert.deepEqual(
      [byConsole.actorKind, byConsole.userId, byConsole.email, byConsole.keyId],
      ['console_user', owner.userId, owner.email, null],
    );
    assert.ok(byConsole.targetIds.includes(created.apiKey.id));

    const viaMcp = await callTool(mcp, 'list_audit_log', { tool: 'create_event' });
    assert.ok(viaMcp.ok);
    assert.deepEqual(
      (viaMcp.output as any).entries.map((e: any) => e.id),
      [byRest.id],
    );
    const stored = await h.db.execute<{ row: string }>(
      'select a::text as row from audit_log a where organization_id = ?',
      [m.organizationId],
    );
    for (const { row } of stored) {
      assert.ok(!row.includes(created.token), 'the created key’s secret is never stored');
      assert.ok(!row.includes(m.apiKey) && !row.includes(owner.token), 'no credential is stored');
    }
  });

  test('another organization’s log is invisible; filters narrow; pages follow nextCursor', async () => {
    const a = await h.merchant();
    const b = await h.merchant();
    const apiA = restClient(h.url, a.apiKey);
    const keyA = await keyIdOf(a.organizationId);
    const from = h.clock.now().toISOString();
    const ids: string[] = [];
    for (const title of ['One', 'Two', 'Three']) {
      h.clock.advance(1000);
      ids.push(
        must(await apiA.post('/v1/integration/events', { merchantId: a.shopId, title, startsAt: startsAt() }), 201).id,
      );
    }
    const apiB = restClient(h.url, b.apiKey);
    assert.deepEqual(must(await apiB.get('/v1/console/audit-log'), 200).entries, []);
    assert.deepEqual(must(await apiB.get(`/v1/console/audit-log?actor=${keyA.id}`), 200).entries, []);
    assert.deepEqual(must(await apiB.get(`/v1/console/audit-log?targetId=${ids[0]}`), 200).entries, []);

    const byTarget = must(await apiA.get(`/v1/console/audit-log?targetId=${ids[1]}`), 200).entries;
    assert.deepEqual(
      byTarget.map((e: any) => e.targetIds.includes(ids[1])),
      [true],
    );
    const byActor = must(await apiA.get(`/v1/console/audit-log?actor=${keyA.id}`), 200).entries;
    assert.equal(byActor.length, 3);
    const secondOnward = new Date(Date.parse(from) + 1500).toISOString();
    const lastExcluded = new Date(Date.parse(from) + 2500).toISOString();
    const window = must(await apiA.get(`/v1/console/audit-log?from=${secondOnward}&to=${lastExcluded}`), 200).entries;
    assert.deepEqual(
      window.flatMap((e: any) => e.targetIds.filter((id: string) => id.startsWith('evt_'))),
      [ids[1]],
    );
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = must(
        await apiA.get(`/v1/console/audit-log?tool=create_event&limit=1${cursor ? `&cursor=${cursor}` : ''}`),
        200,
      );
      assert.ok(page.entries.length <= 1);
      seen.push(...page.entries.flatMap((e: any) => e.targetIds.filter((id: string) => id.startsWith('evt_'))));
      cursor = page.nextCursor;
    } while (cursor);
    assert.deepEqual(seen, [...ids].reverse());
  });

  test('a key without merchant:read may not read the log', async () => {
    const m = await h.merchant(['merchant:write']);
    const res = await restClient(h.url, m.apiKey).get('/v1/console/audit-log');
    assert.deepEqual([res.status, res.body.code], [403, 'insufficient_scope']);
  });
});
