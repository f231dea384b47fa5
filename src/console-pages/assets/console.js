// The merchant console's script. The console bearer lives only in this module's memory (never a cookie or web
// storage): the verify and accept pages redeem the token from the URL fragment and open the console in place.

let bearer = null;
let session = null;
const $ = (id) => document.getElementById(id);

async function api(method, path, body) {
  const headers = { accept: 'application/json' };
  if (bearer) headers.authorization = `Bearer ${bearer}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const data = res.status === 204 ? null : await res.json().catch(() => null);
  if (!res.ok) throw Object.assign(new Error(data?.message ?? 'The request failed.'), { code: data?.code ?? 'network' });
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
  b.addEventListener('click', () => onClick().catch(fail));
  return b;
}

async function loadKeys() {
  const { apiKeys, attestAvailable } = await api('GET', '/v1/console/api-keys');
  $('attest-available').textContent = attestAvailable ? 'Attested consent is available to this organization.' : 'Attested consent is not enabled for this organization.';
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
      actions.append(button(`Revoke ${k.name}`, async () => {
        await api('POST', `/v1/console/api-keys/${encodeURIComponent(k.id)}/revoke`, {});
        say(`Key ${k.name} revoked.`);
        await loadKeys();
      }));
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
    actions.append(button(`Make ${m.email} ${other === 'owner' ? 'an owner' : 'an integrator'}`, async () => {
      await api('PATCH', `/v1/console/team/members/${encodeURIComponent(m.userId)}`, { role: other });
      say(`${m.email} is now ${other === 'owner' ? 'an owner' : 'an integrator'}.`);
      await loadTeam();
    }));
    actions.append(' ', button(`Remove ${m.email}`, async () => {
      await api('DELETE', `/v1/console/team/members/${encodeURIComponent(m.userId)}`);
      say(`${m.email} was removed.`);
      await loadTeam();
    }));
    rows.append(tr);
  }
  const list = $('invitation-rows');
  list.replaceChildren();
  for (const i of invitations) {
    const li = document.createElement('li');
    li.textContent = `${i.email} (${i.role}, ${i.state}) `;
    if (i.state === 'pending') li.append(button(`Withdraw the invitation to ${i.email}`, async () => {
      await api('DELETE', `/v1/console/team/invitations/${encodeURIComponent(i.id)}`);
      say(`The invitation to ${i.email} was withdrawn.`);
      await loadTeam();
    }));
    list.append(li);
  }
}

function openConsole(s) {
  session = s;
  bearer = s.token;
  history.replaceState(null, '', location.pathname);
  $('pending').hidden = true;
  $('console').hidden = false;
  $('who').textContent = `Signed in as ${s.email}, ${s.role} of ${s.organizations.find((o) => o.organizationId === s.organizationId)?.organizationName ?? s.organizationId}.`;
  for (const el of document.querySelectorAll('[data-owner-only]')) if (s.role !== 'owner') el.remove();
  $('page-title').focus();
  return Promise.all([loadKeys(), loadTeam()]);
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
    api('PUT', `/v1/console/merchants/${encodeURIComponent(shop)}/embed-origins`, { embedOrigin: value === '' ? null : value })
      .then((s) => say(s.embedOrigins.length ? `Embed origins saved: ${s.embedOrigins.join(', ')}.` : 'Embed origins cleared.'))
      .catch(fail);
  });
  const invite = $('invite-form');
  if (invite) invite.addEventListener('submit', (e) => {
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
      .then(() => say('If this address belongs to a console member, a sign-in link is on its way. It works once, for 15 minutes.'))
      .catch(fail);
  });
} else if (page === 'verify' || page === 'accept') {
  wireConsole();
  const token = new URLSearchParams(location.hash.slice(1)).get('token');
  const path = page === 'verify' ? '/v1/console/sign-in/complete' : '/v1/console/team/invitations/accept';
  if (!token) fail(new Error('This page needs the link from your e-mail.'));
  else api('POST', path, { token }).then(openConsole).catch(fail);
}
