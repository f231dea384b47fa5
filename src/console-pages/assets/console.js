// The merchant console's script. The console bearer lives only in this module's memory (never a cookie or web
// storage): the verify and accept pages redeem the token from the URL fragment and open the console in place.

let bearer = null;
let session = null;
let shops = [];
let openLog = null;
const $ = (id) => document.getElementById(id);
const isOwner = () => session.role === 'owner';
const when = (iso) => (iso ? new Date(iso).toLocaleString() : '');
const money = (minor, currency) =>
  currency
    ? new Intl.NumberFormat(undefined, { style: 'currency', currency }).format(minor / 100)
    : (minor / 100).toFixed(2);

async function api(method, path, body) {
  const headers = { accept: 'application/json' };
  if (bearer) headers.authorization = `Bearer ${bearer}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const data = res.status === 204 ? null : await res.json().catch(() => null);
  if (!res.ok)
    throw Object.assign(new Error(data?.message ?? 'The request failed.'), { code: data?.code ?? 'network' });
  return data;
}

function say(message) {
  $('error-summary').hidden = true;
  $('status').textContent = message;
}

function fail(err) {
  $('status').textContent = '';
  $('error-text').textContent = err.message;
  $('error-summary').hidden = false;
  $('error-summary').focus();
}

function cell(row, text) {
  const td = document.createElement('td');
  td.textContent = text;
  row.append(td);
  return td;
}

function button(label, onClick) {
  const b = document.createElement('button');
  b.type = 'button';
  b.textContent = label;
  b.addEventListener('click', () => {
    // A table re-rendered by the action drops this button: keyboard focus then goes to the part's heading, not the page
    // top.
    const heading = b.closest('#delivery-log, section')?.querySelector('h2, h3');
    onClick()
      .then(() => {
        if (!b.isConnected && heading) heading.focus();
      })
      .catch(fail);
  });
  return b;
}

async function loadKeys() {
  const { apiKeys, attestAvailable } = await api('GET', '/v1/console/api-keys');
  $('attest-available').textContent = attestAvailable
    ? 'Attested consent is available to this organization.'
    : 'Attested consent is not enabled for this organization.';
  const rows = $('key-rows');
  rows.replaceChildren();
  for (const k of apiKeys) {
    const tr = document.createElement('tr');
    cell(tr, k.name);
    cell(tr, k.scopes.join(', '));
    cell(tr, k.state === 'attestation_disabled' ? 'attestation disabled' : k.state);
    cell(tr, k.lastUsedAt ? new Date(k.lastUsedAt).toLocaleString() : 'No usage recorded');
    const actions = cell(tr, '');
    if (k.state !== 'revoked' && (session.role === 'owner' || k.createdByUserId === session.userId)) {
      actions.append(
        button(`Revoke ${k.name}`, async () => {
          await api('POST', `/v1/console/api-keys/${encodeURIComponent(k.id)}/revoke`, {});
          say(`Key ${k.name} revoked.`);
          await loadKeys();
        }),
      );
    }
    rows.append(tr);
  }
}

async function loadTeam() {
  if (session.role !== 'owner') return;
  const { members, invitations } = await api('GET', '/v1/console/team');
  const rows = $('member-rows');
  rows.replaceChildren();
  for (const m of members) {
    const tr = document.createElement('tr');
    cell(tr, m.email);
    cell(tr, m.role);
    const actions = cell(tr, '');
    const other = m.role === 'owner' ? 'integrator' : 'owner';
    actions.append(
      button(`Make ${m.email} ${other === 'owner' ? 'an owner' : 'an integrator'}`, async () => {
        await api('PATCH', `/v1/console/team/members/${encodeURIComponent(m.userId)}`, { role: other });
        say(`${m.email} is now ${other === 'owner' ? 'an owner' : 'an integrator'}.`);
        await loadTeam();
      }),
    );
    actions.append(
      ' ',
      button(`Remove ${m.email}`, async () => {
        await api('DELETE', `/v1/console/team/members/${encodeURIComponent(m.userId)}`);
        say(`${m.email} was removed.`);
        await loadTeam();
      }),
    );
    rows.append(tr);
  }
  const list = $('invitation-rows');
  list.replaceChildren();
  for (const i of invitations) {
    const li = document.createElement('li');
    li.textContent = `${i.email} (${i.role}, ${i.state}) `;
    if (i.state === 'pending')
      li.append(
        button(`Withdraw the invitation to ${i.email}`, async () => {
          await api('DELETE', `/v1/console/team/invitations/${encodeURIComponent(i.id)}`);
          say(`The invitation to ${i.email} was withdrawn.`);
          await loadTeam();
        }),
      );
    list.append(li);
  }
}

function option(value, label) {
  const o = document.createElement('option');
  o.value = value;
  o.textContent = label;
  return o;
}

/** A table body's single row saying there is nothing to show. */
function emptyRow(rows, text) {
  const tr = document.createElement('tr');
  cell(tr, text).colSpan = rows.closest('table').querySelectorAll('thead th').length;
  rows.append(tr);
}

// Shops: the list for everyone; create, public settings and delete for owners.
async function loadShops() {
  ({ shops } = await api('GET', '/v1/catalog/shops'));
  const rows = $('shop-rows');
  rows.replaceChildren();
  for (const s of shops) {
    const tr = document.createElement('tr');
    cell(tr, s.name);
    cell(tr, s.id);
    cell(tr, s.currency);
    cell(tr, s.discoverable ? 'Yes' : 'No');
    cell(tr, s.description ?? '');
    const actions = cell(tr, '');
    if (isOwner())
      actions.append(
        button(`Delete ${s.name}`, async () => {
          await api('DELETE', `/v1/integration/shops/${encodeURIComponent(s.id)}`);
          say(`Shop ${s.name} deleted.`);
          await loadShops();
        }),
      );
    rows.append(tr);
  }
  if (!shops.length) emptyRow(rows, 'No shops yet.');
  for (const select of document.querySelectorAll('select[data-shop-select]')) {
    const keep = select.value;
    select.replaceChildren(...shops.map((s) => option(s.id, `${s.name} (${s.id})`)));
    if (shops.some((s) => s.id === keep)) select.value = keep;
  }
  fillSettings();
  fillEmbed();
}

const shopIn = (selectId) => shops.find((s) => s.id === $(selectId)?.value);

function fillSettings() {
  const s = shopIn('settings-shop');
  if (!s) return;
  $('settings-name').value = s.name;
  $('settings-description').value = s.description ?? '';
  $('settings-discoverable').checked = s.discoverable;
}

function fillEmbed() {
  const s = shopIn('embed-shop');
  if (s) $('embed-origins').value = s.embedOrigin;
}

// Webhooks: subscriptions of the chosen shop, the delivery log, a test event and redelivery.
async function loadWebhooks() {
  const rows = $('webhook-rows');
  const shop = $('webhook-shop').value;
  rows.replaceChildren();
  if (!shop) return emptyRow(rows, 'Create a shop first.');
  const { webhooks } = await api('GET', `/v1/integration/webhooks?merchantId=${encodeURIComponent(shop)}`);
  for (const w of webhooks) {
    const tr = document.createElement('tr');
    cell(tr, w.url);
    cell(tr, w.events.join(', '));
    cell(tr, when(w.createdAt));
    const actions = cell(tr, '');
    actions.append(
      button(`Delivery log of ${w.url}`, () => showDeliveries(w, true)),
      ' ',
      button(`Send a test event to ${w.url}`, async () => {
        const d = await api('POST', `/v1/integration/webhooks/${encodeURIComponent(w.id)}/test`, {});
        say(`Test event ${d.eventId} queued for ${w.url}.`);
        await showDeliveries(w, false);
      }),
      ' ',
      button(`Delete the webhook to ${w.url}`, async () => {
        await api('DELETE', `/v1/integration/webhooks/${encodeURIComponent(w.id)}`);
        say(`Webhook to ${w.url} deleted.`);
        if (openLog?.id === w.id) {
          openLog = null;
          $('delivery-log').hidden = true;
        }
        await loadWebhooks();
      }),
    );
    rows.append(tr);
  }
  if (!webhooks.length) emptyRow(rows, 'No webhooks for this shop.');
}

async function showDeliveries(w, focus) {
  openLog = w;
  const { deliveries } = await api('GET', `/v1/integration/webhooks/${encodeURIComponent(w.id)}/deliveries`);
  $('delivery-caption').textContent = `Deliveries to ${w.url}, newest first`;
  const rows = $('delivery-rows');
  rows.replaceChildren();
  for (const d of deliveries) {
    const tr = document.createElement('tr');
    cell(tr, d.type);
    cell(tr, d.status);
    cell(tr, String(d.attempts));
    cell(tr, d.lastHttpStatus !== null ? `HTTP ${d.lastHttpStatus}` : (d.lastError ?? 'None yet'));
    cell(tr, when(d.nextAttemptAt));
    cell(tr, when(d.createdAt));
    const actions = cell(tr, '');
    if (d.status !== 'pending')
      actions.append(
        button(`Redeliver ${d.type} ${d.id}`, async () => {
          await api(
            'POST',
            `/v1/integration/webhooks/${encodeURIComponent(w.id)}/deliveries/${encodeURIComponent(d.id)}/redeliver`,
            {},
          );
          say(`Delivery ${d.id} queued again.`);
          await showDeliveries(w, false);
        }),
      );
    rows.append(tr);
  }
  if (!deliveries.length) emptyRow(rows, 'No deliveries yet.');
  $('delivery-log').hidden = false;
  if (focus) $('delivery-log-title').focus();
}

// Attested consent (spec §2.3): the summary for everyone, withdrawal with a reason for owners.
async function loadConsent() {
  const c = await api('GET', '/v1/console/attested-consent');
  $('consent-state').textContent = c.enabled
    ? `Attestation is on: each buyer may be given up to ${money(c.perBuyerCeilingMinor)} (in the shop’s currency) in a rolling ${c.windowHours}-hour window.`
    : 'Attestation is off for this organization; staff switch it on.';
  const keys = $('attest-key-rows');
  keys.replaceChildren();
  for (const k of c.attestKeys) {
    const tr = document.createElement('tr');
    cell(tr, k.name);
    cell(tr, `${k.tokenPrefix}…`);
    cell(tr, k.state === 'attestation_disabled' ? 'attestation disabled' : k.state);
    cell(tr, k.lastUsedAt ? when(k.lastUsedAt) : 'No usage recorded');
    keys.append(tr);
  }
  if (!c.attestKeys.length) emptyRow(keys, 'No attest keys.');
  const counts = $('permission-counts');
  counts.replaceChildren();
  for (const [label, n] of [
    ['Active', c.permissionCounts.active],
    ['Expired', c.permissionCounts.expired],
    ['Withdrawn or revoked', c.permissionCounts.revoked],
    ['Total', c.permissionCounts.total],
  ]) {
    const dt = document.createElement('dt');
    dt.textContent = label;
    const dd = document.createElement('dd');
    dd.textContent = String(n);
    dd.dataset.count = label.toLowerCase().split(' ')[0];
    counts.append(dt, dd);
  }
  const near = $('near-ceiling-rows');
  near.replaceChildren();
  for (const b of c.buyersNearCeiling) {
    const tr = document.createElement('tr');
    cell(tr, b.email);
    cell(tr, money(b.spentMinor));
    cell(tr, money(b.ceilingMinor));
    cell(tr, money(b.remainingMinor));
    near.append(tr);
  }
  if (!c.buyersNearCeiling.length) emptyRow(near, 'No buyer is near the ceiling.');
  const rows = $('permission-rows');
  rows.replaceChildren();
  for (const p of c.recentPermissions) {
    const tr = document.createElement('tr');
    cell(tr, `${p.label ?? 'Permission'} (${p.id})`);
    cell(tr, p.agentId);
    cell(tr, money(p.allowanceMinor, p.currency));
    cell(tr, money(p.perPurchaseCapMinor, p.currency));
    cell(tr, p.status === 'revoked' ? 'withdrawn' : p.status);
    cell(tr, when(p.createdAt));
    cell(tr, p.revokedReason ?? '');
    rows.append(tr);
  }
  if (!c.recentPermissions.length) emptyRow(rows, 'No attested permissions yet.');
  const select = $('withdraw-permission');
  if (select) {
    const active = c.recentPermissions.filter((p) => p.status === 'active');
    select.replaceChildren(...active.map((p) => option(p.id, `${p.label ?? 'Permission'} (${p.id})`)));
    if (!active.length) select.append(option('', 'No active permission'));
  }
}

// The payment provider: the sandbox in use and the second provider's state; owners configure it.
async function loadProviders() {
  const rows = $('provider-rows');
  const shop = $('provider-shop').value;
  rows.replaceChildren();
  if (!shop) return emptyRow(rows, 'Create a shop first.');
  const { providers } = await api('GET', `/v1/integration/shops/${encodeURIComponent(shop)}/payment-providers`);
  for (const p of providers) {
    const tr = document.createElement('tr');
    cell(tr, p.provider);
    cell(tr, p.statusText);
    cell(tr, p.linked ? 'Yes' : 'No');
    cell(tr, p.mode ?? '');
    cell(tr, p.publishableKey ?? '');
    cell(tr, p.secretKey ?? '');
    rows.append(tr);
  }
}

function openConsole(s) {
  session = s;
  bearer = s.token;
  history.replaceState(null, '', location.pathname);
  $('pending').hidden = true;
  $('console').hidden = false;
  $('who').textContent =
    `Signed in as ${s.email}, ${s.role} of ${s.organizations.find((o) => o.organizationId === s.organizationId)?.organizationName ?? s.organizationId}.`;
  for (const el of document.querySelectorAll('[data-owner-only]')) if (s.role !== 'owner') el.remove();
  $('page-title').focus();
  return Promise.all([
    loadKeys(),
    loadTeam(),
    loadConsent(),
    loadShops().then(() => Promise.all([loadWebhooks(), loadProviders()])),
  ]);
}

/** Wires a form's submit to `send` (when the form is there: owner-only forms are gone for integrators). */
function onSubmit(id, send) {
  const form = $(id);
  if (!form) return;
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    if (!form.checkValidity()) {
      const bad = form.querySelector(':invalid');
      fail(new Error(`${bad.labels?.[0]?.textContent ?? 'A field'}: ${bad.validationMessage}`));
      return;
    }
    send(form).catch(fail);
  });
}

function wireConsole() {
  $('key-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const form = e.currentTarget;
    const scopes = [...form.querySelectorAll('input[name=scopes]:checked')].map((c) => c.value);
    api('POST', '/v1/console/api-keys', { name: form.elements.name.value, scopes })
      .then(async ({ apiKey, token }) => {
        $('new-key').hidden = false;
        $('new-key').textContent = `Key ${apiKey.name} created. Copy it now, it is shown once: ${token}`;
        form.reset();
        say(`Key ${apiKey.name} created.`);
        await loadKeys();
      })
      .catch(fail);
  });
  $('embed-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const shop = $('embed-shop').value.trim();
    const value = $('embed-origins').value.trim();
    api('PUT', `/v1/console/merchants/${encodeURIComponent(shop)}/embed-origins`, {
      embedOrigin: value === '' ? null : value,
    })
      .then(async (s) => {
        say(s.embedOrigins.length ? `Embed origins saved: ${s.embedOrigins.join(', ')}.` : 'Embed origins cleared.');
        await loadShops();
      })
      .catch(fail);
  });
  $('embed-shop').addEventListener('change', fillEmbed);
  $('settings-shop').addEventListener('change', fillSettings);
  $('webhook-shop').addEventListener('change', () => {
    openLog = null;
    $('delivery-log').hidden = true;
    loadWebhooks().catch(fail);
  });
  $('provider-shop').addEventListener('change', () => void loadProviders().catch(fail));
  onSubmit('shop-settings-form', async () => {
    const id = $('settings-shop').value;
    const description = $('settings-description').value.trim();
    const s = await api('PATCH', `/v1/integration/shops/${encodeURIComponent(id)}`, {
      name: $('settings-name').value,
      description: description === '' ? null : description,
      discoverable: $('settings-discoverable').checked,
    });
    say(`Settings of ${s.name} saved.`);
    await loadShops();
  });
  onSubmit('shop-create-form', async (form) => {
    const description = $('new-shop-description').value.trim();
    const s = await api('POST', '/v1/integration/shops', {
      name: $('new-shop-name').value,
      currency: $('new-shop-currency').value,
      discoverable: $('new-shop-discoverable').checked,
      ...(description ? { description } : {}),
    });
    form.reset();
    say(`Shop ${s.name} created (${s.id}).`);
    await loadShops();
  });
  onSubmit('webhook-form', async (form) => {
    const events = [...form.querySelectorAll('input[name=events]:checked')].map((c) => c.value);
    if (!events.length) throw new Error('Events: choose at least one event type.');
    const w = await api('POST', '/v1/integration/webhooks', {
      merchantId: $('webhook-shop').value,
      url: $('webhook-url').value,
      events,
    });
    form.reset();
    $('new-webhook').hidden = false;
    $('new-webhook').textContent =
      `Webhook to ${w.url} created. Its signing secret is shown once, copy it now: ${w.secret}`;
    say(`Webhook to ${w.url} created.`);
    await loadWebhooks();
  });
  onSubmit('withdraw-form', async (form) => {
    const id = $('withdraw-permission').value;
    if (!id) throw new Error('There is no active permission to withdraw.');
    await api('POST', `/v1/console/attested-consent/permissions/${encodeURIComponent(id)}/revoke`, {
      reason: $('withdraw-reason').value,
    });
    form.reset();
    say(`Permission ${id} withdrawn.`);
    await loadConsent();
  });
  onSubmit('provider-form', async (form) => {
    const accountId = $('provider-account').value.trim();
    const shop = $('provider-shop').value;
    const p = await api('PUT', `/v1/integration/shops/${encodeURIComponent(shop)}/payment-providers/stripe`, {
      publishableKey: $('provider-publishable').value.trim(),
      secretKey: $('provider-secret').value.trim(),
      webhookSecret: $('provider-webhook-secret').value.trim(),
      ...(accountId ? { accountId } : {}),
    });
    form.reset();
    say(`Stripe settings saved: ${p.statusText}.`);
    await loadProviders();
  });
  const invite = $('invite-form');
  if (invite)
    invite.addEventListener('submit', (e) => {
      e.preventDefault();
      api('POST', '/v1/console/team/invitations', { email: $('invite-email').value, role: $('invite-role').value })
        .then(async (i) => {
          say(`Invitation sent to ${i.email}.`);
          invite.reset();
          await loadTeam();
        })
        .catch(fail);
    });
  $('sign-out').addEventListener('click', () => {
    bearer = null;
    session = null;
    location.assign('/console/sign-in');
  });
}

const page = document.getElementById('main')?.dataset.page;
if (page === 'sign-in') {
  $('sign-in-form').addEventListener('submit', (e) => {
    e.preventDefault();
    api('POST', '/v1/console/sign-in', { email: $('email').value })
      .then(() =>
        say(
          'If this address belongs to a console member, a sign-in link is on its way. It works once, for 15 minutes.',
        ),
      )
      .catch(fail);
  });
} else if (page === 'verify' || page === 'accept') {
  wireConsole();
  const token = new URLSearchParams(location.hash.slice(1)).get('token');
  const path = page === 'verify' ? '/v1/console/sign-in/complete' : '/v1/console/team/invitations/accept';
  if (!token) fail(new Error('This page needs the link from your e-mail.'));
  else api('POST', path, { token }).then(openConsole).catch(fail);
}
