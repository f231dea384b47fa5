/**
 * Revoked authority ends at once (issue #10, finding 6): a staff session stops the moment its user is no longer service
 * staff, on REST, MCP and A2A, with no new token needed. (Console sessions: test/console/team.test.ts.)
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness } from '../support/harness.ts';
import { SURFACES } from '../support/surfaces.ts';

let h: Harness;
before(async () => {
  h = await startHarness({ WEBHOOK_DISPATCH_MS: '0' });
});
after(async () => {
  await h?.close();
});

test('a staff session stops as soon as staff status is removed, on every surface', async () => {
  const m = await h.merchant();
  const token = await h.staffToken();
  const [{ sub }] = [JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as { sub: string }];
  const input = (enabled: boolean) => ({ id: m.organizationId, enabled, perBuyerCeilingMinor: 5_000, windowHours: 24 });
  for (const surface of SURFACES) {
    const { call, done } = await surface.connect(h, token);
    try {
      const before = await call('set_organization_attestation', input(true));
      assert.ok(before.ok, `${surface.name}: ${JSON.stringify(before)}`);
      await h.db.execute('update users set is_staff = false where id = ?', [sub]);
      const afterRemoval = await call('set_organization_attestation', input(false));
      assert.equal(afterRemoval.ok, false, `${surface.name}: ${JSON.stringify(afterRemoval)}`);
      if (!afterRemoval.ok) assert.match(afterRemoval.code, /^(unauthenticated|forbidden|not_found)$/, surface.name);
      await h.db.execute('update users set is_staff = true where id = ?', [sub]);
    } finally {
      await done();
    }
  }
  const [row] = await h.db.execute<{ attestation_enabled: boolean }>(
    'select attestation_enabled from organizations where id = ?',
    [m.organizationId],
  );
  assert.equal(row?.attestation_enabled, true);
});
