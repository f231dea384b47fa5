/**
 * The second payment provider (spec §9) and the changes list: Stripe settings are validated and stored with the
 * secrets sealed, shown as "configured, not switched on in the sandbox"; linking it stays refused and payments
 * keep using the sandbox. The changelog is served with the API docs.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Harness } from '../support/harness.ts';
import { restClient } from '../support/rest.ts';
import { confirmWith, must, reserveOne, shopWithTier, startSpineHarness } from '../support/spine.ts';
import { verifies } from '../support/requirements.ts';

let h: Harness;
before(async () => {
  h = await startSpineHarness();
});
after(async () => {
  await h?.close();
});

const SETTINGS = {
  publishableKey: 'pk_test_51AbCdEfGhIjKlMnOpQrSt',
  secretKey: 'sk_test_51ZyXwVuTsRqPoNmLkJi9x8Y',
  webhookSecret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  accountId: 'acct_1Ab2Cd3Ef4Gh',
};

describe('the second payment provider', () => {
  test(`${verifies('SPEC-9-second-provider-off')}configured with validated settings, secrets sealed at rest, shown as not switched on; payments stay on the sandbox`, async () => {
    const s = await shopWithTier(h);
    const before = must(await s.api.get(`/v1/integration/shops/${s.shopId}/payment-providers`), 200);
    assert.deepEqual(
      before.providers.map((p: any) => [p.provider, p.status]),
      [
        ['sandbox', 'active'],
        ['stripe', 'not_configured'],
      ],
    );
    const configured = must(
      await s.api.put(`/v1/integration/shops/${s.shopId}/payment-providers/stripe`, SETTINGS),
      200,
    );
    assert.deepEqual(
      [
        configured.status,
        configured.statusText,
        configured.linked,
        configured.mode,
        configured.secretKey,
        configured.webhookSecret,
      ],
      ['configured_not_enabled', 'configured, not switched on in the sandbox', false, 'test', '…9x8Y', 'set'],
    );
    const body = JSON.stringify(must(await s.api.get(`/v1/integration/shops/${s.shopId}/payment-providers`), 200));
    assert.ok(
      !body.includes(SETTINGS.secretKey) && !body.includes(SETTINGS.webhookSecret),
      'secrets are never shown again',
    );
    const [row] = await h.db.execute<{ secrets_sealed: string; settings: unknown }>(
      'select secrets_sealed, settings from payment_provider_settings where shop_id = ?',
      [s.shopId],
    );
    const stored = JSON.stringify(row);
    assert.ok(
      !stored.includes(SETTINGS.secretKey) && !stored.includes(SETTINGS.webhookSecret),
      'secrets are encrypted at rest',
    );
    assert.match(row!.secrets_sealed, /^v1\./);

    const link = await s.api.put(`/v1/integration/shops/${s.shopId}/payment-provider`, { provider: 'stripe' });
    assert.deepEqual([link.status, link.body.code], [409, 'provider_not_enabled']);
    assert.equal(must(await s.api.get(`/v1/catalog/shops/${s.shopId}`), 200).paymentProvider, 'sandbox');
    const held = await reserveOne(s.api, s.tierId, 1);
    const paid = must(await confirmWith(s.api, held.reservation.id, 'pm_sandbox_visa'), 200);
    assert.equal(paid.payment.provider, 'sandbox');
    assert.equal(paid.reservation.state, 'completed');
  });

  test('each bad setting is refused naming the field; nothing is stored', async () => {
    const s = await shopWithTier(h);
    const cases: [Record<string, string>, string][] = [
      [{ publishableKey: 'pk_nope' }, 'publishableKey'],
      [{ secretKey: 'pk_test_51ZyXwVuTsRqPoNmLkJi9x8Y' }, 'secretKey'],
      [{ secretKey: 'sk_live_51ZyXwVuTsRqPoNmLkJi9x8Y' }, 'secretKey'],
      [{ webhookSecret: 'secret' }, 'webhookSecret'],
      [{ accountId: 'acct_' }, 'accountId'],
    ];
    for (const [change, field] of cases) {
      const r = await s.api.put(`/v1/integration/shops/${s.shopId}/payment-providers/stripe`, {
        ...SETTINGS,
        ...change,
      });
      assert.deepEqual(
        [r.status, r.body.code, r.body.details?.field],
        [400, 'invalid_provider_settings', field],
        JSON.stringify(change),
      );
    }
    const unknown = await s.api.put(`/v1/integration/shops/${s.shopId}/payment-providers/stripe`, {
      ...SETTINGS,
      apiVersion: '2024',
    });
    assert.deepEqual([unknown.status, unknown.body.code], [400, 'unknown_field']);
    const other = await s.api.put(`/v1/integration/shops/${s.shopId}/payment-providers/adyen`, SETTINGS);
    assert.deepEqual([other.status, other.body.code], [400, 'invalid_input']);
    const [n] = await h.db.execute<{ n: string }>(
      'select count(*) as n from payment_provider_settings where shop_id = ?',
      [s.shopId],
    );
    assert.equal(Number(n!.n), 0);
  });

  test('only merchant:admin (console: the owner) configures; another organization gets 404', async () => {
    const s = await shopWithTier(h);
    const m = await h.merchant(['merchant:read', 'merchant:write']);
    // The key moves to the shop's organization without its maker (who is no member there: such a key would be 401).
    await h.db.execute('update api_keys set organization_id = ?, created_by_user_id = null where organization_id = ?', [
      s.organizationId,
      m.organizationId,
    ]);
    const w = await restClient(h.url, m.apiKey).put(
      `/v1/integration/shops/${s.shopId}/payment-providers/stripe`,
      SETTINGS,
    );
    assert.deepEqual([w.status, w.body.code], [403, 'insufficient_scope']);
    must(await restClient(h.url, m.apiKey).get(`/v1/integration/shops/${s.shopId}/payment-providers`), 200);
    const stranger = await shopWithTier(h);
    assert.equal(
      (await stranger.api.put(`/v1/integration/shops/${s.shopId}/payment-providers/stripe`, SETTINGS)).status,
      404,
    );
  });
});

describe('the changes list', () => {
  test(`${verifies('SPEC-9-changes-list')}CHANGELOG.md is served with the API docs and lists the October 2026 entries with their status`, async () => {
    const file = readFileSync(join(import.meta.dirname, '..', '..', 'CHANGELOG.md'), 'utf8');
    const md = await fetch(`${h.url}/docs/changelog.md`);
    assert.equal(md.status, 200);
    assert.match(md.headers.get('content-type') ?? '', /text\/markdown/);
    assert.equal(await md.text(), file);
    const page = await fetch(`${h.url}/docs/changelog`);
    assert.equal(page.status, 200);
    const html = await page.text();
    assert.match(html, /<html lang="en">/);
    const entries: [string, string][] = [
      ['SDK 0.5.0', 'sandbox'],
      ['SDK 0.4.0', 'sandbox'],
      ['`merchant:admin` scope', 'sandbox'],
      ['A second payment provider', 'not switched on'],
      ['Withdrawn: replacing the emailed code by an emailed link', 'sandbox'],
    ];
    for (const [entry, status] of entries) {
      const line = file.split('\n').find((l) => l.includes(entry));
      assert.ok(line, `no entry ${entry}`);
      assert.match(line, new RegExp(`\\*${status}\\.\\*`), `${entry} is marked ${status}`);
    }
    assert.match(file, /## October 2026/);
    const docs = await (await fetch(`${h.url}/docs`)).text();
    assert.match(docs, /href="\/docs\/changelog"/);
  });
});
