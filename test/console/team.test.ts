/**
 * Console sign-in by e-mail and the team (issue #12 item 1): magic links for members only, single use, expiring;
 * invitations with a role, single use, expiring, withdrawable; the team list, role changes and removals, with an
 * organization never left without an owner; a removed member's session stops at once.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { listOutboxMail } from '../../src/mail/outbox.ts';
import type { Harness } from '../support/harness.ts';
import { restClient } from '../support/rest.ts';
import { SURFACES } from '../support/surfaces.ts';
import { must, startSpineHarness } from '../support/spine.ts';

let h: Harness;
before(async () => {
  h = await startSpineHarness();
});
after(async () => {
  await h?.close();
});

const anon = () => restClient(h.url);

async function ownerEmail(organizationId: string): Promise<string> {
  const [row] = await h.db.execute<{ email: string }>(
    `select u.email from memberships m join users u on u.id = m.user_id where m.organization_id = ? and m.role = 'owner'`,
    [organizationId],
  );
  return row!.email;
}

/** The token in the newest e-mail to `email` whose link goes to `path`. */
async function tokenFromMail(email: string, path: string): Promise<string> {
  const mails = await listOutboxMail(h.db, { to: email, limit: 50 });
  const re = new RegExp(`${path}#token=([A-Za-z0-9_-]+)`);
  const hit = mails.map((x) => re.exec(x.text)).find((x) => x !== null);
  assert.ok(hit, `no ${path} link in the mail to ${email}`);
  return hit[1]!;
}

async function signIn(email: string) {
  h.clock.advance(1000); // the newest mail is this one (the outbox orders by time)
  must(await anon().post('/v1/console/sign-in', { email }), 202);
  const token = await tokenFromMail(email, '/console/verify');
  return must(await anon().post('/v1/console/sign-in/complete', { token }), 200);
}

describe('console sign-in by e-mail', () => {
  test('a member signs in with an emailed link, once; the session has the membership’s role', async () => {
    const m = await h.merchant(undefined, 'Sign-in Org');
    const email = await ownerEmail(m.organizationId);
    must(await anon().post('/v1/console/sign-in', { email: email.toUpperCase() }), 202);
    const token = await tokenFromMail(email, '/console/verify');
    const session = must(await anon().post('/v1/console/sign-in/complete', { token }), 200);
    assert.deepEqual(
      [session.organizationId, session.role, session.email, session.tokenType],
      [m.organizationId, 'owner', email, 'Bearer'],
    );
    assert.deepEqual(session.organizations, [
      { organizationId: m.organizationId, organizationName: 'Sign-in Org', role: 'owner' },
    ]);
    const team = must(await restClient(h.url, session.token).get('/v1/console/team'), 200);
    assert.equal(team.members[0].email, email);
    const again = await anon().post('/v1/console/sign-in/complete', { token });
    assert.deepEqual([again.status, again.body.code], [422, 'sign_in_link_invalid']);
    const [stored] = await h.db.execute<{ n: string }>(
      'select count(*) as n from console_sign_in_links where token_hash = ?',
      [token],
    );
    assert.equal(Number(stored!.n), 0, 'only the hash of a link token is stored');
  });

  test('a link expires after 15 minutes; unknown addresses get the same answer and no mail', async () => {
    const m = await h.merchant();
    const email = await ownerEmail(m.organizationId);
    const known = must(await anon().post('/v1/console/sign-in', { email }), 202);
    const token = await tokenFromMail(email, '/console/verify');
    h.clock.advance(15 * 60_000 + 1000);
    assert.equal((await anon().post('/v1/console/sign-in/complete', { token })).body.code, 'sign_in_link_invalid');
    const stranger = await anon().post('/v1/console/sign-in', { email: 'nobody-here@example.test' });
    assert.equal(stranger.status, 202);
    // The same answer as a member's: where the link goes (delivery) never tells whether the address is a member.
    assert.deepEqual(Object.keys(stranger.body).sort(), ['delivery', 'expiresAt', 'sent']);
    assert.equal(stranger.body.delivery, known.delivery);
    assert.deepEqual(await listOutboxMail(h.db, { to: 'nobody-here@example.test' }), []);
    const bad = await anon().post('/v1/console/sign-in/complete', { token: 'x'.repeat(43) });
    assert.equal(bad.body.code, 'sign_in_link_invalid');
  });

  test('at most five links per address per 15 minutes', async () => {
    const m = await h.merchant();
    const email = await ownerEmail(m.organizationId);
    for (let i = 0; i < 5; i++) must(await anon().post('/v1/console/sign-in', { email }), 202);
    const sixth = await anon().post('/v1/console/sign-in', { email });
    assert.deepEqual([sixth.status, sixth.body.code], [429, 'rate_limited']);
    assert.ok(sixth.body.retryAfter >= 1);
  });
});

describe('the team', () => {
  test('an owner invites an integrator, who accepts once, signs in, and works within the integrator role', async () => {
    const m = await h.merchant(undefined, 'Team Org');
    const owner = restClient(h.url, (await signIn(await ownerEmail(m.organizationId))).token);
    const invited = must(
      await owner.post('/v1/console/team/invitations', { email: 'Dev@Example.test', role: 'integrator' }),
      201,
    );
    assert.deepEqual([invited.email, invited.role, invited.state], ['dev@example.test', 'integrator', 'pending']);
    const [mail] = await listOutboxMail(h.db, { to: 'dev@example.test', limit: 1 });
    assert.match(mail!.subject, /invited to Team Org/);
    const token = await tokenFromMail('dev@example.test', '/console/accept');
    const session = must(await anon().post('/v1/console/team/invitations/accept', { token }), 200);
    assert.deepEqual(
      [session.role, session.organizationId, session.email],
      ['integrator', m.organizationId, 'dev@example.test'],
    );
    const reuse = await anon().post('/v1/console/team/invitations/accept', { token });
    assert.deepEqual([reuse.status, reuse.body.code], [422, 'invitation_invalid']);

    const integrator = restClient(h.url, session.token);
    const team = await integrator.get('/v1/console/team');
    assert.deepEqual([team.status, team.body.code], [403, 'forbidden'], 'the integrator does not see the team');
    must(
      await integrator.post('/v1/console/api-keys', { name: 'ci', scopes: ['merchant:read', 'merchant:write'] }),
      201,
    );
    const later = await signIn('dev@example.test');
    assert.equal(later.role, 'integrator', 'the integrator signs in by e-mail too');

    const list = must(await owner.get('/v1/console/team'), 200);
    assert.deepEqual(
      list.members.map((x: any) => [x.email, x.role]),
      [
        [await ownerEmail(m.organizationId), 'owner'],
        ['dev@example.test', 'integrator'],
      ],
    );
    assert.deepEqual(list.invitations, []);
    const dup = await owner.post('/v1/console/team/invitations', { email: 'dev@example.test', role: 'owner' });
    assert.deepEqual([dup.status, dup.body.code], [409, 'already_member']);
  });

  test('invitations expire after 7 days and can be withdrawn; a new one replaces a pending one', async () => {
    const m = await h.merchant();
    const ownerMail = await ownerEmail(m.organizationId);
    let owner = restClient(h.url, (await signIn(ownerMail)).token);
    must(await owner.post('/v1/console/team/invitations', { email: 'late@example.test', role: 'integrator' }), 201);
    const lateToken = await tokenFromMail('late@example.test', '/console/accept');
    const first = must(
      await owner.post('/v1/console/team/invitations', { email: 'twice@example.test', role: 'integrator' }),
      201,
    );
    const firstToken = await tokenFromMail('twice@example.test', '/console/accept');
    const second = must(
      await owner.post('/v1/console/team/invitations', { email: 'twice@example.test', role: 'owner' }),
      201,
    );
    assert.equal(
      (await anon().post('/v1/console/team/invitations/accept', { token: firstToken })).body.code,
      'invitation_invalid',
      'the replaced invitation is void',
    );
    const pending = must(await owner.get('/v1/console/team'), 200).invitations.map((i: any) => i.id);
    assert.ok(pending.includes(second.id) && !pending.includes(first.id));
    must(await owner.delete(`/v1/console/team/invitations/${second.id}`), 200);
    assert.equal((await owner.delete(`/v1/console/team/invitations/${second.id}`)).status, 404);
    const secondToken = await tokenFromMail('twice@example.test', '/console/accept');
    assert.equal(
      (await anon().post('/v1/console/team/invitations/accept', { token: secondToken })).body.code,
      'invitation_invalid',
      'a withdrawn invitation is void',
    );
    h.clock.advance(7 * 86_400_000 + 1000);
    assert.equal(
      (await anon().post('/v1/console/team/invitations/accept', { token: lateToken })).body.code,
      'invitation_invalid',
      'an expired invitation is void',
    );
    owner = restClient(h.url, (await signIn(ownerMail)).token);
    assert.deepEqual(
      must(await owner.get('/v1/console/team'), 200).invitations.map((i: any) => i.state),
      ['expired'],
    );
  });

  test('roles change and members leave; the last owner stays; a removed member’s session stops at once', async () => {
    const m = await h.merchant();
    const ownerMail = await ownerEmail(m.organizationId);
    const ownerSession = await signIn(ownerMail);
    const owner = restClient(h.url, ownerSession.token);
    must(await owner.post('/v1/console/team/invitations', { email: 'second@example.test', role: 'integrator' }), 201);
    const second = must(
      await anon().post('/v1/console/team/invitations/accept', {
        token: await tokenFromMail('second@example.test', '/console/accept'),
      }),
      200,
    );
    const lastOwner = await owner.call('PATCH', `/v1/console/team/members/${ownerSession.userId}`, {
      role: 'integrator',
    });
    assert.deepEqual([lastOwner.status, lastOwner.body.code], [409, 'last_owner']);
    assert.equal((await owner.delete(`/v1/console/team/members/${ownerSession.userId}`)).body.code, 'last_owner');
    const promoted = must(
      await owner.call('PATCH', `/v1/console/team/members/${second.userId}`, { role: 'owner' }),
      200,
    );
    assert.equal(promoted.role, 'owner');
    assert.equal(
      (await restClient(h.url, second.token).get('/v1/console/team')).status,
      403,
      'a promotion applies from the next sign-in',
    );
    const asOwner = await signIn('second@example.test');
    assert.equal(asOwner.role, 'owner');
    must(await restClient(h.url, asOwner.token).get('/v1/console/team'), 200);
    must(await owner.call('PATCH', `/v1/console/team/members/${second.userId}`, { role: 'integrator' }), 200);
    const demoted = await restClient(h.url, asOwner.token).get('/v1/console/team');
    assert.equal(demoted.status, 403, 'a demotion applies to open sessions at once');
    must(await owner.delete(`/v1/console/team/members/${second.userId}`), 200);
    const gone = await restClient(h.url, second.token).get('/v1/console/api-keys');
    assert.deepEqual([gone.status, gone.body.code], [401, 'unauthenticated']);
    assert.equal((await owner.delete(`/v1/console/team/members/${second.userId}`)).status, 404);
    const other = await h.merchant();
    const otherOwner = restClient(h.url, (await signIn(await ownerEmail(other.organizationId))).token);
    assert.equal(
      (await otherOwner.call('PATCH', `/v1/console/team/members/${ownerSession.userId}`, { role: 'integrator' }))
        .status,
      404,
    );
    assert.equal((await otherOwner.delete(`/v1/console/team/members/${ownerSession.userId}`)).status, 404);
  });

  test('a person in two organizations switches between them with their role there', async () => {
    const a = await h.merchant(undefined, 'Alpha');
    const b = await h.merchant(undefined, 'Beta');
    const email = await ownerEmail(a.organizationId);
    const bOwner = restClient(h.url, (await signIn(await ownerEmail(b.organizationId))).token);
    must(await bOwner.post('/v1/console/team/invitations', { email, role: 'integrator' }), 201);
    must(
      await anon().post('/v1/console/team/invitations/accept', {
        token: await tokenFromMail(email, '/console/accept'),
      }),
      200,
    );
    const session = await signIn(email);
    assert.deepEqual(
      session.organizations.map((o: any) => [o.organizationName, o.role]),
      [
        ['Alpha', 'owner'],
        ['Beta', 'integrator'],
      ],
    );
    const switched = must(
      await restClient(h.url, session.token).post('/v1/console/session/organization', {
        organizationId: b.organizationId,
      }),
      200,
    );
    assert.deepEqual([switched.organizationId, switched.role], [b.organizationId, 'integrator']);
    const stranger = await h.merchant();
    assert.equal(
      (
        await restClient(h.url, session.token).post('/v1/console/session/organization', {
          organizationId: stranger.organizationId,
        })
      ).status,
      404,
    );
  });

  test('an invitation’s session acts only in the inviting organization: no switch to the person’s others', async () => {
    const a = await h.merchant(undefined, 'Own');
    const b = await h.merchant(undefined, 'Inviting');
    const email = await ownerEmail(a.organizationId);
    const bOwner = restClient(h.url, (await signIn(await ownerEmail(b.organizationId))).token);
    must(await bOwner.post('/v1/console/team/invitations', { email, role: 'integrator' }), 201);
    const invitation = await tokenFromMail(email, '/console/accept');
    const accepted = must(await anon().post('/v1/console/team/invitations/accept', { token: invitation }), 200);
    assert.deepEqual([accepted.organizationId, accepted.role], [b.organizationId, 'integrator']);
    const listed = accepted.organizations.map((o: any) => o.organizationId);
    assert.deepEqual(listed, [b.organizationId], 'only the inviting organization');
    for (const surface of SURFACES) {
      const { call, done } = await surface.connect(h, accepted.token);
      try {
        const owned = await call('switch_console_organization', { organizationId: a.organizationId });
        assert.equal(!owned.ok && owned.code, 'forbidden', `${surface.name}: ${JSON.stringify(owned)}`);
        const same = await call('switch_console_organization', { organizationId: b.organizationId });
        assert.ok(same.ok, JSON.stringify(same));
        const { call: again, done: close } = await surface.connect(h, same.output.token);
        let still: Awaited<ReturnType<typeof again>>;
        try {
          still = await again('switch_console_organization', { organizationId: a.organizationId });
        } finally {
          await close();
        }
        const why = `a session switched from an invitation's is still bound: ${JSON.stringify(still)}`;
        assert.equal(!still.ok && still.code, 'forbidden', why);
      } finally {
        await done();
      }
    }
    // A sign-in by e-mail reaches both.
    const signedIn = restClient(h.url, (await signIn(email)).token);
    const switchTo = (organizationId: string) => signedIn.post('/v1/console/session/organization', { organizationId });
    must(await switchTo(b.organizationId), 200);
    const own = must(await switchTo(a.organizationId), 200);
    assert.equal(own.role, 'owner');
  });

  for (const surface of SURFACES.filter((x) => x.name !== 'rest')) {
    test(`team operations over ${surface.name}`, async () => {
      const m = await h.merchant();
      const session = await signIn(await ownerEmail(m.organizationId));
      const { call, done } = await surface.connect(h, session.token);
      try {
        const inv = await call('invite_team_member', {
          email: `x-${surface.name.replace(/\W/g, '')}@example.test`,
          role: 'integrator',
        });
        assert.ok(inv.ok, JSON.stringify(inv));
        const team = await call('list_team', {});
        assert.ok(team.ok && team.output.invitations.length === 1);
      } finally {
        await done();
      }
    });
  }
});
