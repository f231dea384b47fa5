/**
 * Tickets people can carry (issue #37, item 5): the order's tickets as a PDF (from get_ticket_downloads' link and
 * attached to the confirmation e-mail, in all six languages), Apple Wallet passes signed with the merchant's own
 * certificate and Google Wallet save links signed with the merchant's own key, both off by default. The certificates
 * and keys are made here: a test root CA, a WWDR-like intermediate and a pass-type certificate. In Chromium: My tickets'
 "Download tickets (PDF)" and each ticket's wallet link, the console's Wallet passes view (axe-clean) and order page.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, generateKeyPairSync } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import forge from 'node-forge';
import { unzipSync } from 'fflate';
import { importSPKI, jwtVerify } from 'jose';
import { extractText, getDocumentProxy } from 'unpdf';
import type { Page } from 'playwright-core';
import { readFile } from 'node:fs/promises';
import { restClient } from '../support/rest.ts';
import { signInTokenIn } from '../support/smtp.ts';
import { axeOn } from '../support/browser.ts';
import { buy, merchantShop, must } from '../support/buyers.ts';
import { newEmail, openFromNav, reportOnFailure, startWorld, type World } from '../browser/flows.ts';

const LANGS = ['en', 'de', 'es', 'fr', 'hu', 'pt-BR'] as const;
const catalog = (lang: string) =>
  JSON.parse(readFileSync(new URL(`../../src/i18n/locales/${lang}.json`, import.meta.url), 'utf8')) as {
    mail: { ticketPdf: Record<string, string> };
  };
const TITLE = 'Őszi fesztivál – űrnapok';

let w: World;
reportOnFailure(() => ({ browser: w?.browser, h: w?.h }));
before(async () => {
  w = await startWorld();
});
after(async () => {
  await w?.close();
});

/** A shop with an event at a venue (Hungarian letters in its title), a tier, and a signed-in buyer of two tickets. */
async function boughtOrder() {
  const m = await merchantShop(w.h, { discoverable: true });
  const startsAt = new Date(w.h.clock.now().getTime() + 20 * 86_400_000).toISOString();
  const event = must(
    await m.api.post('/v1/integration/events', {
      merchantId: m.shopId,
      title: TITLE,
      startsAt,
      venue: 'Müpa Budapest',
      timeZone: 'Europe/Budapest',
    }),
    201,
  );
  const pool = must(
    await m.api.post('/v1/integration/pools', { merchantId: m.shopId, eventId: event.id, capacity: 10 }),
    201,
  );
  const tier = must(
    await m.api.post('/v1/integration/tiers', {
      eventId: event.id,
      poolId: pool.id,
      name: 'Állójegy',
      priceMinor: 4000,
      attendeeForm: { name: 'optional', questions: [] },
    }),
    201,
  );
  const email = newEmail();
  const buyer = restClient(w.h.url, await signIn(email));
  const attendees = [{ tierId: tier.id, index: 0, name: 'Ödön Lővy' }];
  const order = must(await buy(buyer, tier.id, 2, { paymentMethod: 'pm_sandbox_visa', attendees }), 200).order;
  await w.h.app.orderMail.idle();
  return { m, buyer, email, order, tierId: tier.id };
}

/** A full buyer session for `email` (signed in by the e-mailed link), its bearer. */
async function signIn(email: string): Promise<string> {
  const anon = restClient(w.h.url);
  must(await anon.post('/v1/buyer/sign-in-links', { email, lang: 'en' }), 202);
  return must(await anon.post('/v1/buyer/sessions', { token: signInTokenIn(w.mail.last(email)) }), 201).token;
}

async function pdfText(bytes: Uint8Array): Promise<string> {
  return (await extractText(await getDocumentProxy(new Uint8Array(bytes)), { mergePages: true })).text;
}

async function download(url: string): Promise<{ status: number; type: string | null; body: Buffer }> {
  const res = await fetch(url);
  return { status: res.status, type: res.headers.get('content-type'), body: Buffer.from(await res.arrayBuffer()) };
}

test('an order’s tickets download as a PDF in all six languages and come attached to the confirmation e-mail', async () => {
  const { buyer, email, order, m } = await boughtOrder();
  const ids = order.tickets.map((t: { id: string }) => t.id);
  for (const lang of LANGS) {
    const links = must(await buyer.get(`/v1/ticketing/orders/${order.id}/downloads?lang=${lang}`), 200);
    assert.equal(links.lang, lang);
    assert.deepEqual(
      links.tickets,
      ids.map((ticketId: string) => ({ ticketId })),
      'wallets are off by default',
    );
    assert.equal(links.appleWallet, false);
    const file = await download(links.pdf.url);
    assert.equal(file.status, 200);
    assert.equal(file.type, 'application/pdf');
    const text = await pdfText(file.body);
    const words = catalog(lang).mail.ticketPdf;
    for (const needle of [TITLE, 'Müpa Budapest', 'Állójegy', 'Ödön Lővy', ...ids, words.ticketId!, words.attendee!])
      assert.ok(text.includes(needle), `${lang}: the PDF shows ${needle}`);
  }
  // The merchant downloads it too; another organization's key does not see the order.
  must(await m.api.get(`/v1/ticketing/orders/${order.id}/downloads`), 200);
  const stranger = await merchantShop(w.h);
  assert.equal((await stranger.api.get(`/v1/ticketing/orders/${order.id}/downloads`)).status, 404);
  // A link altered or past its hour answers 404.
  const { pdf } = must(await buyer.get(`/v1/ticketing/orders/${order.id}/downloads`), 200);
  assert.equal((await download(pdf.url.replace(/.$/, (c: string) => (c === 'A' ? 'B' : 'A')))).status, 404);
  w.h.clock.advance(61 * 60_000);
  assert.equal((await download(pdf.url)).status, 404);

  // The confirmation e-mail (in the buyer's language, English here) carries the same PDF.
  const mail = w.mail.last(email);
  const attached = mail.attachments.filter((a) => a.contentType === 'application/pdf');
  assert.equal(attached.length, 1);
  const text = await pdfText(attached[0]!.content);
  for (const id of ids) assert.ok(text.includes(id), 'the attached PDF lists each ticket');
  assert.match(mail.text, new RegExp(`tickets-${order.id}\\.pdf`));
});

/** A key pair and a certificate for `cn`, issued by `issuer` (itself when absent). */
function certificate(cn: string, issuer?: { cert: forge.pki.Certificate; key: forge.pki.rsa.PrivateKey }, ca = false) {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const keyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(publicKey.export({ type: 'spki', format: 'pem' }).toString());
  cert.serialNumber = `0${Math.floor(Math.random() * 1e9).toString(16)}`;
  cert.validity.notBefore = new Date(Date.now() - 86_400_000);
  cert.validity.notAfter = new Date(Date.now() + 365 * 86_400_000);
  cert.setSubject([{ name: 'commonName', value: cn }]);
  cert.setIssuer(issuer ? issuer.cert.subject.attributes : [{ name: 'commonName', value: cn }]);
  cert.setExtensions([
    { name: 'basicConstraints', cA: ca },
    { name: 'keyUsage', keyCertSign: ca, cRLSign: ca, digitalSignature: true },
  ]);
  const key = forge.pki.privateKeyFromPem(keyPem) as forge.pki.rsa.PrivateKey;
  cert.sign(issuer?.key ?? key, forge.md.sha256.create());
  return {
    cert,
    key,
    keyPem,
    certPem: forge.pki.certificateToPem(cert),
    publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

test('wallet passes: the merchant’s certificate signs the .pkpass, its service-account key the Google save link', async () => {
  const root = certificate('Tessera Test Root CA', undefined, true);
  const wwdr = certificate('Test WWDR Intermediate', root, true);
  const signer = certificate('Pass Type ID: pass.test.tessera.tickets', wwdr);
  const other = certificate('Someone else', root);
  const google = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const { m, buyer, email, tierId } = await boughtOrder();
  const apple = {
    passTypeIdentifier: 'pass.test.tessera.tickets',
    teamIdentifier: 'ABCDE12345',
    signerCertificate: signer.certPem,
    signerKey: signer.keyPem,
    wwdrCertificate: wwdr.certPem,
  };
  const path = `/v1/integration/shops/${m.shopId}/wallet-passes`;
  assert.deepEqual(must(await m.api.get(path), 200), { merchantId: m.shopId, apple: null, google: null });
  const mismatched = await m.api.put(path, { apple: { ...apple, signerKey: other.keyPem } });
  assert.equal(mismatched.status, 400);
  assert.equal(mismatched.body.code, 'invalid_wallet_settings');
  assert.equal(mismatched.body.details.field, 'signerKey');
  const googleKey = google.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const saved = await m.api.put(path, {
    apple,
    google: {
      issuerId: '3388000000012345',
      classId: '3388000000012345.concerts',
      serviceAccountEmail: 'wallet@tessera-test.iam.gserviceaccount.com',
      privateKey: googleKey,
    },
  });
  must(saved, 200);
  const shown = JSON.stringify(must(await m.api.get(path), 200));
  assert.ok(!shown.includes('PRIVATE KEY') && !JSON.stringify(saved.body).includes('PRIVATE KEY'), 'keys never shown');
  assert.equal(saved.body.apple.teamIdentifier, 'ABCDE12345');

  // A purchase after wallets are on: the e-mail links each ticket's pass and save link.
  const order = must(await buy(buyer, tierId, 1, { paymentMethod: 'pm_sandbox_visa' }), 200).order;
  await w.h.app.orderMail.idle();
  assert.match(w.mail.last(email).text, /\/v1\/ticket-files\/v1\./);
  assert.match(w.mail.last(email).text, /https:\/\/pay\.google\.com\/gp\/v\/save\//);

  const links = must(await buyer.get(`/v1/ticketing/orders/${order.id}/downloads`), 200);
  const [ticket] = links.tickets;
  const signedCode = order.tickets[0].signedCode as string;

  // The .pkpass: a zip with pass.json (the QR is the signed code), manifest.json (SHA-1 of every file) and a
  // detached PKCS#7 signature over the manifest that verifies against the test root.
  const pass = await download(ticket.appleWalletUrl);
  assert.equal(pass.status, 200);
  assert.equal(pass.type, 'application/vnd.apple.pkpass');
  const files = unzipSync(new Uint8Array(pass.body));
  const passJson = JSON.parse(Buffer.from(files['pass.json']!).toString('utf8'));
  assert.equal(passJson.passTypeIdentifier, apple.passTypeIdentifier);
  assert.equal(passJson.serialNumber, ticket.ticketId);
  assert.equal(passJson.barcodes[0].message, signedCode);
  const manifest = JSON.parse(Buffer.from(files['manifest.json']!).toString('utf8')) as Record<string, string>;
  for (const [name, bytes] of Object.entries(files)) {
    if (name === 'manifest.json' || name === 'signature') continue;
    assert.equal(manifest[name], createHash('sha1').update(bytes).digest('hex'), `manifest lists ${name}`);
  }
  const dir = mkdtempSync(join(tmpdir(), 'pkpass-'));
  try {
    writeFileSync(join(dir, 'manifest.json'), files['manifest.json']!);
    writeFileSync(join(dir, 'signature'), files['signature']!);
    writeFileSync(join(dir, 'root.pem'), root.certPem);
    const verify = (ca: string) =>
      execFileSync(
        'openssl',
        [
          'cms',
          '-verify',
          '-binary',
          '-inform',
          'DER',
          '-in',
          join(dir, 'signature'),
          '-content',
          join(dir, 'manifest.json'),
          '-CAfile',
          ca,
          '-purpose',
          'any',
          '-out',
          join(dir, 'out'),
        ],
        { stdio: 'pipe' },
      );
    verify(join(dir, 'root.pem'));
    writeFileSync(join(dir, 'other.pem'), certificate('Another root', undefined, true).certPem);
    assert.throws(() => verify(join(dir, 'other.pem')), 'a different root does not verify it');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  // The Google save link: an RS256 JWT the service account's public key verifies, holding the ticket's code.
  const jwt = (ticket.googleWalletUrl as string).replace('https://pay.google.com/gp/v/save/', '');
  const spki = google.publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const { payload } = await jwtVerify(jwt, await importSPKI(spki, 'RS256'), { audience: 'google' });
  assert.equal(payload.iss, 'wallet@tessera-test.iam.gserviceaccount.com');
  const object = (payload.payload as { eventTicketObjects: Record<string, any>[] }).eventTicketObjects[0]!;
  assert.equal(object.classId, '3388000000012345.concerts');
  assert.equal(object.barcode.value, signedCode);

  // Switched off again: no wallet links, and the pass link no longer works.
  must(await m.api.put(path, { apple: null, google: null }), 200);
  const off = must(await buyer.get(`/v1/ticketing/orders/${order.id}/downloads`), 200);
  assert.deepEqual(off.tickets, [{ ticketId: ticket.ticketId }]);
  assert.equal((await download(ticket.appleWalletUrl)).status, 404);
});

async function noAxeViolations(page: Page, where: string): Promise<void> {
  const results = await axeOn(page).analyze();
  assert.deepEqual(
    results.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
    [],
    `axe on ${where}`,
  );
}

/** Clicks `name` and returns the file the browser downloaded: its suggested name and its first bytes. */
async function downloadBy(page: Page, name: string): Promise<{ filename: string; head: string }> {
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name }).click()]);
  const path = await download.path();
  return { filename: download.suggestedFilename(), head: (await readFile(path)).subarray(0, 5).toString('latin1') };
}

test('buyers and merchants download the tickets PDF; an owner switches Google Wallet links on in the console', async () => {
  const m = await merchantShop(w.h, { discoverable: true });
  const bearer = await signIn(newEmail());
  const order = must(
    await buy(restClient(w.h.url, bearer), m.tierId, 1, { paymentMethod: 'pm_sandbox_visa' }),
    200,
  ).order;

  // The owner switches Google Wallet on in the console's Wallet passes view.
  const [owner] = await w.h.db.execute<{ email: string }>('select email from users where id = ?', [m.ownerId]);
  const console = await w.browser.page();
  await console.goto(`${w.h.url}/console/sign-in`);
  await console.getByLabel('Work e-mail').fill(owner!.email);
  await console.getByRole('button', { name: 'Send me a sign-in link' }).click();
  await console.locator('.feedback', { hasText: 'a sign-in link is on its way' }).waitFor();
  const link = /\/console\/verify#token=[\w-]+/.exec(w.mail.last(owner!.email).text)!;
  await console.goto(`${w.h.url}${link[0]}`);
  await console.locator('main[data-view="overview"]').waitFor();
  await console.getByRole('link', { name: 'Wallet passes' }).click();
  await console.locator('main[data-view="wallet-passes"]').waitFor();
  const googleKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
  await console.getByLabel('Issuer id').fill('3388000000012345');
  await console.getByLabel('Event-ticket class id').fill('3388000000012345.concerts');
  await console.getByLabel('Service account e-mail').fill('wallet@tessera-test.iam.gserviceaccount.com');
  await console
    .getByLabel('Service account private key (PEM)')
    .fill(googleKey.export({ type: 'pkcs8', format: 'pem' }).toString());
  await console.locator('#wallet-google-title ~ form button[type="submit"]').click();
  await console.locator('dd', { hasText: 'On: issuer 3388000000012345, class 3388000000012345.concerts' }).waitFor();
  await noAxeViolations(console, 'wallet passes');

  // My tickets: the PDF downloads, and the ticket gets its Google Wallet link.
  const page = await w.browser.page();
  await page.goto(`${w.h.url}/buyer/agents#session=${bearer}`);
  await page.locator('main[data-ready] #content:not([hidden])').waitFor();
  await openFromNav(page, 'My tickets', /\/buyer\/tickets\?lang=en$/);
  const pdf = await downloadBy(page, 'Download tickets (PDF)');
  assert.deepEqual(pdf, { filename: `tickets-${order.id}.pdf`, head: '%PDF-' });
  const wallet = page.locator(`li[data-ticket-id="${order.tickets[0].id}"] a`, { hasText: 'Save to Google Wallet' });
  assert.match((await wallet.getAttribute('href'))!, /^https:\/\/pay\.google\.com\/gp\/v\/save\/ey/);

  // The console's order page downloads the same PDF.
  await console.goto(`${w.h.url}/console/shops/${m.shopId}/orders/${order.id}`);
  await console.locator('main[data-view="order"]').waitFor();
  assert.deepEqual(await downloadBy(console, 'Download the tickets (PDF)'), pdf);

  // Switched off again: the view says so.
  await console.goto(`${w.h.url}/console/shops/${m.shopId}/wallet-passes`);
  await console.locator('#wallet-google-title ~ form').getByRole('button', { name: 'Switch off' }).click();
  await console.locator('dd', { hasText: /^Off$/ }).nth(1).waitFor();
  assert.deepEqual(
    w.browser.problems.filter((p) => !p.includes('401')),
    [],
  );
});
