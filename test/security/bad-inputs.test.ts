/**
 * Inputs that made a 500 (issue #10, finding 7): a lone UTF-16 surrogate, JSON nested 5,000 levels deep, a body of only
 * `__proto__`, and headers too large. Each is refused with a stable `{ code, message }` on REST, MCP and A2A (and ACP).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { connect } from 'node:net';
import { startHarness, type Harness } from '../support/harness.ts';
import { restClient } from '../support/rest.ts';
import { SURFACES } from '../support/surfaces.ts';
import { count, must, shopWithTier } from '../support/spine.ts';
import { ACP_VERSION, createBody, shopWithTier as acpShop } from '../support/acp.ts';

let h: Harness;
before(async () => {
  h = await startHarness({ WEBHOOK_DISPATCH_MS: '0' });
});
after(async () => {
  await h?.close();
});

const LONE = '\ud800';
/** A JSON text nested `depth` arrays deep. */
const deep = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

test('a lone surrogate in a string is 400 invalid_input on every surface, with and without an idempotency key', async () => {
  const m = await h.merchant();
  for (const surface of SURFACES) {
    const { call, done } = await surface.connect(h, m.apiKey);
    try {
      for (const idempotencyKey of [undefined, randomUUID()]) {
        const out = await call(
          'create_event',
          { merchantId: m.shopId, title: `Gig ${LONE}`, startsAt: '2030-05-01T19:00:00Z' },
          idempotencyKey ? { idempotencyKey } : {},
        );
        assert.equal(out.ok, false, `${surface.name}: ${JSON.stringify(out)}`);
        if (!out.ok) {
          assert.equal(out.code, 'invalid_input', `${surface.name}: ${JSON.stringify(out)}`);
          assert.match(out.message, /title/);
        }
      }
      const key = await call('quote', { tierId: `tier_${LONE}` });
      assert.equal(key.ok, false);
    } finally {
      await done();
    }
  }
});

test('a lone surrogate on ACP create is a 400 with an ACP error, never a 500', async () => {
  const s = await acpShop(h);
  const api = restClient(h.url, s.apiKey);
  const body = createBody(s.tierId, { buyer: { first_name: `A${LONE}`, last_name: 'L', email: 'ada@example.test' } });
  const res = await api.post('/checkout_sessions', body, {
    'api-version': ACP_VERSION,
    'idempotency-key': randomUUID(),
  });
  assert.equal(res.status, 400, JSON.stringify(res.body));
  assert.equal(typeof res.body.code, 'string');
  assert.equal(typeof res.body.message, 'string');
});

test('JSON nested 5,000 levels deep is 400 on REST and MCP, and A2A answers without a stack-overflow message', async () => {
  const m = await h.merchant();
  const rest = await restClient(h.url, m.apiKey).post(
    '/v1/integration/events',
    `{"merchantId":"${m.shopId}","title":${deep(5000)}}`,
  );
  assert.equal(rest.status, 400, JSON.stringify(rest.body));
  assert.equal(rest.body.code, 'invalid_input');
  assert.match(rest.body.message, /nested/);

  const mcp = await restClient(h.url, m.apiKey).post(
    '/mcp',
    `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_event","arguments":{"merchantId":"${m.shopId}","title":${deep(5000)}}}}`,
    { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
  );
  assert.ok(mcp.status < 500, `${mcp.status} ${JSON.stringify(mcp.body)}`);
  const mcpText = JSON.stringify(mcp.body);
  assert.ok(mcp.status === 400 || /invalid_input/.test(mcpText), mcpText.slice(0, 400));
  assert.doesNotMatch(mcpText, /call stack|RangeError|internal_error/);

  const a2a = await restClient(h.url, m.apiKey).post(
    '/a2a/jsonrpc',
    `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"${randomUUID()}","role":"ROLE_USER","parts":[{"data":{"skill":"create_event","input":{"title":${deep(5000)}}}}]}}}`,
    { 'a2a-version': '1.0' },
  );
  assert.ok(a2a.status < 500, String(a2a.status));
  const a2aText = JSON.stringify(a2a.body);
  assert.doesNotMatch(a2aText, /call stack|RangeError|internal_error/);
  assert.match(a2aText, /nested/);
});

test('a body of only __proto__ is refused as an unknown field and holds nothing; a reused key with another body is 422', async () => {
  const s = await shopWithTier(h, { capacity: 5 });
  const q1 = must(await s.api.post('/v1/ticketing/quotes', { tierId: s.tierId, quantity: 1 }), 201).quoteId;
  const q2 = must(await s.api.post('/v1/ticketing/quotes', { tierId: s.tierId, quantity: 1 }), 201).quoteId;
  const key = randomUUID();
  const proto = await s.api.post('/v1/ticketing/reservations', `{"__proto__":{"quoteId":"${q1}"}}`, {
    'idempotency-key': key,
  });
  assert.equal(proto.status, 400, JSON.stringify(proto.body));
  assert.equal(proto.body.code, 'unknown_field');
  assert.deepEqual(proto.body.details.fields, ['__proto__']);
  assert.equal(await count(h.db, `from reservations where pool_id = ?`, [s.poolId]), 0);

  const first = await s.api.post('/v1/ticketing/reservations', { quoteId: q1 }, { 'idempotency-key': key });
  assert.equal(first.status, 201, JSON.stringify(first.body));
  const other = await s.api.post('/v1/ticketing/reservations', { quoteId: q2 }, { 'idempotency-key': key });
  assert.equal(other.status, 422);
  assert.equal(other.body.code, 'idempotency_conflict');
  const protoAgain = await s.api.post('/v1/ticketing/reservations', `{"__proto__":{"quoteId":"${q2}"}}`, {
    'idempotency-key': key,
  });
  assert.equal(protoAgain.status, 400);
  assert.equal(protoAgain.headers.get('idempotent-replayed'), null);

  for (const surface of SURFACES.filter((x) => x.name !== 'rest')) {
    const { call, done } = await surface.connect(h, s.apiKey);
    try {
      const out = await call('reserve', JSON.parse(`{"__proto__":{"quoteId":"${q2}"}}`), {
        idempotencyKey: randomUUID(),
      });
      assert.equal(out.ok, false, `${surface.name}: ${JSON.stringify(out)}`);
    } finally {
      await done();
    }
  }
  assert.equal(await count(h.db, `from reservations where pool_id = ?`, [s.poolId]), 1);
});

test('headers too large are 431 with a { code, message } JSON body', async () => {
  const url = new URL('/v1/discovery/shops', h.url);
  const res = await new Promise<{ status: number; type: string | undefined; body: string }>((resolve, reject) => {
    const req = request(url, { method: 'GET', headers: { 'x-big': 'a'.repeat(20_000) } }, (r) => {
      let body = '';
      r.setEncoding('utf8');
      r.on('data', (d: string) => (body += d));
      r.on('end', () => resolve({ status: r.statusCode!, type: r.headers['content-type'], body }));
    });
    req.on('error', reject);
    req.end();
  });
  assert.equal(res.status, 431);
  assert.match(res.type ?? '', /application\/json/);
  const body = JSON.parse(res.body);
  assert.equal(body.code, 'headers_too_large');
  assert.equal(typeof body.message, 'string');
});

/**
 * Sends `head` (which asks to close the connection after the answer) and then each of `pieces` over one raw connection;
 * resolves with the answer's status and body, or undefined when the connection closed without one (`cut`: closed by us
 * after the last piece).
 */
function rawPost(head: string, pieces: string[], cut = false): Promise<{ status: number; body: string } | undefined> {
  const url = new URL(h.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => {
      socket.setNoDelay(true);
      const send = (i: number) => {
        if (i === pieces.length) {
          if (cut) socket.destroy();
          return;
        }
        socket.write(pieces[i]!, () => send(i + 1));
      };
      socket.write(head, () => send(0));
    });
    let got = '';
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => (got += d));
    socket.on('close', () => {
      const m = /^HTTP\/1\.1 (\d{3})[^]*?\r\n\r\n([^]*)$/.exec(got);
      resolve(m ? { status: Number(m[1]), body: m[2]! } : undefined);
    });
    socket.on('error', (err) => (cut ? undefined : reject(err)));
  });
}

test('a body of declared length sent in pieces is read whole (REST and A2A); one cut short is dropped and the server answers the next call', async () => {
  const m = await h.merchant();
  const body = JSON.stringify({ merchantId: m.shopId, title: 'Pieces', startsAt: '2030-05-01T19:00:00Z' });
  const head = (path: string, length: number, extra = '') =>
    `POST ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Bearer ${m.apiKey}\r\nContent-Type: application/json\r\n${extra}Content-Length: ${length}\r\n\r\n`;
  const thirds = (text: string) => [text.slice(0, 10), text.slice(10, 40), text.slice(40)];
  assert.equal((await rawPost(head('/v1/integration/events', Buffer.byteLength(body)), thirds(body)))?.status, 201);
  assert.equal(await count(h.db, `from events where title = 'Pieces'`), 1);
  // A2A's JSON-RPC endpoint reads its body the same way: an answer naming the request's id means the whole body was
  // read.
  const rpc = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'GetTask', params: { id: 'task_missing' } });
  const answered = await rawPost(head('/a2a/jsonrpc', Buffer.byteLength(rpc), 'A2A-Version: 1.0\r\n'), thirds(rpc));
  assert.equal(answered?.status, 200);
  assert.equal(JSON.parse(answered!.body).id, 7, answered?.body);
  // Declared 10 bytes longer than sent, then closed: the request never completes, so nothing is created.
  const cutBody = body.replace('Pieces', 'Cut short');
  assert.equal(
    await rawPost(head('/v1/integration/events', Buffer.byteLength(cutBody) + 10), [cutBody], true),
    undefined,
  );
  const next = await restClient(h.url, m.apiKey).post('/v1/integration/events', {
    merchantId: m.shopId,
    title: 'After',
    startsAt: '2030-05-01T19:00:00Z',
  });
  assert.equal(next.status, 201);
  assert.equal(await count(h.db, `from events where title = 'Cut short'`), 0);
});
