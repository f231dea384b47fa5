/**
 * Page sessions (issue #34, items 1 and 6): the console and the buyer pages keep their session in an HttpOnly,
 * SameSite=Strict cookie that counts only with the X-Tessera-Session header, only on REST, only from this service's
 * own pages; sign-out ends it server-side; it expires with the session.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { listOutboxMail } from '../../src/mail/outbox.ts';
import type { Harness } from '../support/harness.ts';
import { restClient } from '../support/rest.ts';
import { must, startSpineHarness } from '../support/spine.ts';

let h: Harness;
before(async () => {
  h = await startSpineHarness();
});
after(async () => {
  await h?.close();
});

const anon = () => restClient(h.url);

/** The token in the newest e-mail to `email` whose link goes to `path`. */
async function tokenFromMail(email: string, path: string): Promise<string> {
  const mails = await listOutboxMail(h.db, { to: email, limit: 50 });
  const re = new RegExp(`${path}#token=([A-Za-z0-9_-]+)`);
  const hit = mails.map((x) => re.exec(x.text)).find((x) => x !== null);
  assert.ok(hit, `no ${path} link in the mail to ${email}`);
  return hit[1]!;
}

/** The `name=value` of a Set-Cookie answer, and its attributes, lower-cased. */
function cookieOf(headers: Headers): { pair: string; attributes: string[] } {
  const [set] = headers.getSetCookie();
  assert.ok(set, 'a Set-Cookie header');
  const [pair, ...attributes] = set.split(';').map((s) => s.trim());
  return { pair: pair!, attributes: attributes.map((a) => a.toLowerCase()) };
}

const console_ = (cookie: string, extra: Record<string, string> = {}) => ({
  cookie,
  'x-tessera-session': 'console',
  ...extra,
});

async function consoleCookie(): Promise<{ cookie: string; email: string; organizationId: string; body: any }> {
  const m = await h.merchant(undefined, `Cookie Org ${Date.now()}`);
  const [row] = await h.db.execute<{ email: string }>(
    `select u.email from memberships m join users u on u.id = m.user_id where m.organization_id = ?`,
    [m.organizationId],
  );
  const email = row!.email;
  h.clock.advance(1000);
  must(await anon().post('/v1/console/sign-in', { email }), 202);
  const token = await tokenFromMail(email, '/console/verify');
  const res = await anon().post('/v1/console/sign-in/complete', { token }, { 'x-tessera-session': 'console' });
  assert.equal(res.status, 200);
  return { cookie: cookieOf(res.headers).pair, email, organizationId: m.organizationId, body: res.body };
}

describe('console page session (cookie)', () => {
  test('a page sign-in sets an HttpOnly SameSite=Strict cookie; with the header it works, without it is 401', async () => {
    const { cookie, email, organizationId, body } = await consoleCookie();
    assert.equal(body.token, '', 'the page never holds a bearer');
    const res = await anon().post(
      '/v1/console/sign-in/complete',
      { token: 'x'.repeat(30) },
      { 'x-tessera-session': 'console' },
    );
    assert.equal(res.status, 422, 'a failed sign-in sets nothing');
    assert.equal(res.headers.getSetCookie().length, 0);
    assert.match(cookie, /^tessera_console=tws_/);
    const me = must(await anon().get('/v1/console/session', console_(cookie)), 200);
    assert.deepEqual([me.email, me.organizationId, me.role], [email, organizationId, 'owner']);
    assert.ok(Date.parse(me.expiresAt) > h.clock.now().getTime());
    const team = must(await anon().get('/v1/console/team', console_(cookie)), 200);
    assert.equal(team.members[0].email, email);
    assert.equal((await anon().get('/v1/console/session', { cookie })).status, 401, 'no header: the cookie is ignored');
    const [stored] = await h.db.execute<{ n: string }>('select count(*) as n from web_sessions where token_hash = ?', [
      cookie.split('=')[1]!,
    ]);
    assert.equal(Number(stored!.n), 0, 'only the hash of the reference is stored');
  });

  test('the cookie has the attributes of a same-site session, expiring with it (http: no Secure)', async () => {
    h.clock.advance(1000);
    const m = await h.merchant();
    const [row] = await h.db.execute<{ email: string }>(
      'select u.email from memberships m join users u on u.id = m.user_id where m.organization_id = ?',
      [m.organizationId],
    );
    must(await anon().post('/v1/console/sign-in', { email: row!.email }), 202);
    const token = await tokenFromMail(row!.email, '/console/verify');
    const res = await anon().post('/v1/console/sign-in/complete', { token }, { 'x-tessera-session': 'console' });
    const { attributes } = cookieOf(res.headers);
    for (const a of ['httponly', 'samesite=strict', 'path=/']) assert.ok(attributes.includes(a), a);
    const hint = res.headers.getSetCookie()[1]!.toLowerCase();
    assert.match(
      hint,
      /^tessera_console_signed_in=1; path=\/; expires=[^;]+; samesite=strict$/,
      'a readable companion',
    );
    assert.ok(!attributes.includes('secure'), 'plain http: not Secure');
    const expires = attributes.find((a) => a.startsWith('expires='));
    assert.equal(Date.parse(expires!.slice(8)), Math.floor(Date.parse(res.body.expiresAt) / 1000) * 1000);
  });

  test('another site cannot use the cookie: a foreign Origin or a cross-site fetch is 403; MCP and bearers never', async () => {
    const { cookie } = await consoleCookie();
    const foreign = await anon().get('/v1/console/session', console_(cookie, { origin: 'https://evil.example' }));
    assert.deepEqual([foreign.status, foreign.body.code], [403, 'forbidden']);
    const crossSite = await anon().get('/v1/console/session', console_(cookie, { 'sec-fetch-site': 'cross-site' }));
    assert.equal(crossSite.status, 403);
    const own = await anon().get('/v1/console/session', console_(cookie, { origin: new URL(h.url).origin }));
    assert.equal(own.status, 200);
    const preflight = await fetch(new URL('/v1/buyer/session', h.url), {
      method: 'OPTIONS',
      headers: {
        origin: 'https://evil.example',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'x-tessera-session',
      },
    });
    assert.ok(!(preflight.headers.get('access-control-allow-headers') ?? '').includes('x-tessera-session'));
    const reference = cookie.split('=')[1]!;
    const asBearer = await restClient(h.url, reference).get('/v1/console/session');
    assert.equal(asBearer.status, 401, 'the reference is no bearer');
    const mcp = await fetch(new URL('/mcp', h.url), {
      method: 'POST',
      headers: {
        cookie,
        'x-tessera-session': 'console',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    assert.equal(mcp.status, 401, 'MCP reads no cookie');
  });

  test('sign-out ends the session server-side and clears the cookie; replaying the old cookie is 401', async () => {
    const { cookie } = await consoleCookie();
    const out = await anon().post('/v1/console/session/end', {}, console_(cookie));
    assert.deepEqual([out.status, out.body], [200, { ended: true }]);
    const cleared = cookieOf(out.headers);
    assert.equal(cleared.pair, 'tessera_console=');
    assert.ok(cleared.attributes.some((a) => a.startsWith('expires=thu, 01 jan 1970')));
    const replay = await anon().get('/v1/console/session', console_(cookie));
    assert.deepEqual([replay.status, replay.body.code], [401, 'unauthenticated']);
  });

  test('the cookie session expires with the session (8 hours)', async () => {
    const { cookie } = await consoleCookie();
    h.clock.advance(8 * 3600_000 - 5000);
    assert.equal((await anon().get('/v1/console/session', console_(cookie))).status, 200);
    h.clock.advance(10_000);
    assert.equal((await anon().get('/v1/console/session', console_(cookie))).status, 401);
  });

  test('without the header a sign-in answers as before: the bearer in the body, no cookie', async () => {
    h.clock.advance(1000);
    const m = await h.merchant();
    const [row] = await h.db.execute<{ email: string }>(
      'select u.email from memberships m join users u on u.id = m.user_id where m.organization_id = ?',
      [m.organizationId],
    );
    must(await anon().post('/v1/console/sign-in', { email: row!.email }), 202);
    const token = await tokenFromMail(row!.email, '/console/verify');
    const res = await anon().post('/v1/console/sign-in/complete', { token });
    assert.equal(res.headers.getSetCookie().length, 0);
    must(await restClient(h.url, res.body.token).get('/v1/console/session'), 200);
  });
});

describe('buyer page session (cookie)', () => {
  test('a buyer page sign-in keeps its session in a cookie; sign-out ends it', async () => {
    const email = `cookie-buyer-${Date.now()}@example.test`;
    h.clock.advance(1000);
    must(await anon().post('/v1/buyer/sign-in-links', { email }), 202);
    const [mail] = await listOutboxMail(h.db, { to: email, limit: 1 });
    const token = /#token=([0-9a-z]+)/.exec(mail!.text)![1]!;
    const res = await anon().post('/v1/buyer/sessions', { token }, { 'x-tessera-session': 'buyer' });
    assert.equal(res.status, 201);
    const { pair } = cookieOf(res.headers);
    assert.match(pair, /^tessera_buyer=tws_/);
    const page = { cookie: pair, 'x-tessera-session': 'buyer' };
    const me = must(await anon().get('/v1/buyer/session', page), 200);
    assert.deepEqual([me.email, me.mode], [email, 'full']);
    assert.equal((await anon().get('/v1/buyer/session', { cookie: pair })).status, 401);
    const asConsole = await anon().get('/v1/console/session', { cookie: pair, 'x-tessera-session': 'console' });
    assert.equal(asConsole.status, 401, 'a buyer cookie is no console session');
    assert.deepEqual(must(await anon().post('/v1/buyer/session/end', {}, page), 200), { ended: true });
    assert.equal((await anon().get('/v1/buyer/session', page)).status, 401);
  });
});
