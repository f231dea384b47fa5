/**
 * A shop's wallet passes (issue #37, item 5): Apple Wallet signed with the merchant's own pass-type certificate and
 * Google Wallet save links signed with the merchant's own service-account key. Off by default (no row); the settings
 * are checked when stored (the certificate and key belong together, the key is RSA), the public parts kept in clear
 * and the key and certificates sealed with the payment-provider credentials box, bound to shop and wallet, never
 * returned or logged.
 */
import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import type { ToolContext } from '../context.ts';
import { ToolError } from '../../kernel/errors.ts';
import { principalKey } from '../../kernel/principal.ts';
import { iso } from '../../kernel/wire.ts';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Database, sql } from '../../storage/database.ts';
import { requireShop } from '../catalog/access.ts';

type Ctx = Pick<ToolContext, 'em' | 'principal' | 'clock' | 'services'>;
type Box = Ctx['services']['payments']['credentials'];

/** Apple Wallet: the pass type, the team, and the pass-type certificate with its key and Apple's WWDR certificate. */
export interface AppleWalletIn {
  passTypeIdentifier: string;
  teamIdentifier: string;
  organizationName?: string | undefined;
  signerCertificate: string;
  signerKey: string;
  signerKeyPassphrase?: string | undefined;
  wwdrCertificate: string;
}

/** Google Wallet: the issuer, the event-ticket class the objects belong to, and the service account that signs. */
export interface GoogleWalletIn {
  issuerId: string;
  classId: string;
  serviceAccountEmail: string;
  privateKey: string;
}

/** `undefined` leaves a wallet as it is, `null` switches it off. */
export interface WalletSettingsIn {
  apple?: AppleWalletIn | null | undefined;
  google?: GoogleWalletIn | null | undefined;
}

/** The opened settings a pass is built with (secrets included): domain use only, never on the wire. */
export interface OpenedWalletSettings {
  apple?: AppleWalletIn & { organizationName: string };
  google?: GoogleWalletIn;
}

const refuse = (field: string, message: string) => new ToolError('invalid_wallet_settings', message, { field });

function certificate(pem: string, field: string): X509Certificate {
  try {
    return new X509Certificate(pem);
  } catch {
    throw refuse(field, `${field} must be a PEM certificate.`);
  }
}

function privateKey(pem: string, field: string, passphrase?: string): KeyObject {
  try {
    return createPrivateKey(passphrase ? { key: pem, passphrase } : pem);
  } catch {
    throw refuse(field, `${field} must be a PEM private key${passphrase ? ' that opens with the passphrase' : ''}.`);
  }
}

/** Format and pairing rules; returns the public facts kept in clear. */
function checkApple(a: AppleWalletIn, shopName: string) {
  if (!/^pass\.[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$/.test(a.passTypeIdentifier))
    throw refuse('passTypeIdentifier', 'passTypeIdentifier must be a pass type id (pass.com.example.tickets).');
  if (!/^[A-Z0-9]{10}$/.test(a.teamIdentifier))
    throw refuse('teamIdentifier', 'teamIdentifier must be the 10-character Apple team id.');
  const cert = certificate(a.signerCertificate, 'signerCertificate');
  certificate(a.wwdrCertificate, 'wwdrCertificate');
  const key = privateKey(a.signerKey, 'signerKey', a.signerKeyPassphrase);
  if (!cert.checkPrivateKey(key)) throw refuse('signerKey', 'signerKey is not the key of signerCertificate.');
  return {
    passTypeIdentifier: a.passTypeIdentifier,
    teamIdentifier: a.teamIdentifier,
    organizationName: a.organizationName ?? shopName,
    certificateSubject: cert.subject.replace(/\n/g, ', '),
    certificateExpiresAt: iso(new Date(cert.validTo)),
  };
}

function checkGoogle(g: GoogleWalletIn) {
  if (!/^[0-9]{5,25}$/.test(g.issuerId)) throw refuse('issuerId', 'issuerId must be the Google Wallet issuer id.');
  if (!g.classId.startsWith(`${g.issuerId}.`) || !/^[0-9]+\.[A-Za-z0-9._-]+$/.test(g.classId))
    throw refuse('classId', 'classId must be "<issuerId>.<class suffix>" (letters, digits, . _ -).');
  if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(g.serviceAccountEmail))
    throw refuse('serviceAccountEmail', 'serviceAccountEmail must be the service account’s e-mail address.');
  if (privateKey(g.privateKey, 'privateKey').asymmetricKeyType !== 'rsa')
    throw refuse('privateKey', 'privateKey must be the service account’s RSA key (PEM).');
  return { issuerId: g.issuerId, classId: g.classId, serviceAccountEmail: g.serviceAccountEmail };
}

interface Row {
  wallet: 'apple' | 'google';
  settings: Record<string, string>;
  configured_at: Date;
  updated_at: Date;
}

const binding = (shopId: string, wallet: string) => `${shopId}:wallet:${wallet}`;

/** The wire view: what is on and its public parts; secrets only as "set". */
function view(shopId: string, rows: readonly Row[]) {
  const dates = (r: Row) => ({ configuredAt: iso(r.configured_at), updatedAt: iso(r.updated_at) });
  const apple = rows.find((r) => r.wallet === 'apple');
  const google = rows.find((r) => r.wallet === 'google');
  return {
    merchantId: shopId,
    apple: apple
      ? {
          enabled: true as const,
          passTypeIdentifier: apple.settings.passTypeIdentifier!,
          teamIdentifier: apple.settings.teamIdentifier!,
          organizationName: apple.settings.organizationName!,
          certificateSubject: apple.settings.certificateSubject!,
          certificateExpiresAt: apple.settings.certificateExpiresAt!,
          ...dates(apple),
        }
      : null,
    google: google
      ? {
          enabled: true as const,
          issuerId: google.settings.issuerId!,
          classId: google.settings.classId!,
          serviceAccountEmail: google.settings.serviceAccountEmail!,
          ...dates(google),
        }
      : null,
  };
}

const READ = 'select wallet, settings, configured_at, updated_at from wallet_pass_settings where shop_id = ?';

/** The shop's wallet-pass settings, without secrets. */
export async function getWalletSettings(ctx: Ctx, shopId: string) {
  const shop = await requireShop(ctx.em, ctx.principal, shopId);
  return view(shop.id, await sql<Row>(ctx.em, READ, [shop.id]));
}

/** Stores, replaces or switches off (null) each wallet named in `input`; checks everything before writing. */
export async function configureWalletSettings(ctx: Ctx, shopId: string, input: WalletSettingsIn) {
  const shop = await requireShop(ctx.em, ctx.principal, shopId);
  const now = ctx.clock.now();
  const box = ctx.services.payments.credentials;
  const writes: { wallet: 'apple' | 'google'; settings: object; secrets: object }[] = [];
  if (input.apple) {
    const { signerCertificate, signerKey, signerKeyPassphrase, wwdrCertificate } = input.apple;
    const secrets = { signerCertificate, signerKey, signerKeyPassphrase, wwdrCertificate };
    writes.push({ wallet: 'apple', settings: checkApple(input.apple, shop.name), secrets });
  }
  if (input.google) {
    writes.push({
      wallet: 'google',
      settings: checkGoogle(input.google),
      secrets: { privateKey: input.google.privateKey },
    });
  }
  for (const wallet of ['apple', 'google'] as const) {
    if (input[wallet] === null)
      await sql(ctx.em, 'delete from wallet_pass_settings where shop_id = ? and wallet = ?', [shop.id, wallet]);
  }
  for (const w of writes) {
    await sql(
      ctx.em,
      `insert into wallet_pass_settings (shop_id, wallet, settings, secrets_sealed, configured_by, configured_at, updated_at)
       values (?, ?, ?::jsonb, ?, ?, ?, ?)
       on conflict (shop_id, wallet) do update set settings = excluded.settings, secrets_sealed = excluded.secrets_sealed,
         configured_by = excluded.configured_by, updated_at = excluded.updated_at`,
      [
        shop.id,
        w.wallet,
        JSON.stringify(w.settings),
        box.seal(JSON.stringify(w.secrets), binding(shop.id, w.wallet)),
        principalKey(ctx.principal),
        now,
        now,
      ],
    );
  }
  return view(shop.id, await sql<Row>(ctx.em, READ, [shop.id]));
}

/**
 * The opened settings of a shop (for building passes), read on `db` or in a call's transaction (`em`); a wallet whose
 * secrets do not open with this server's key (another server secret) counts as off.
 */
export async function openWalletSettings(
  db: Database | EntityManager,
  box: Box,
  shopId: string,
): Promise<OpenedWalletSettings> {
  type Sealed = Row & { secrets_sealed: string };
  const text = 'select wallet, settings, secrets_sealed from wallet_pass_settings where shop_id = ?';
  const rows =
    db instanceof Database ? await db.execute<Sealed>(text, [shopId]) : await sql<Sealed>(db, text, [shopId]);
  const out: OpenedWalletSettings = {};
  for (const r of rows) {
    const opened = box.open(r.secrets_sealed, binding(shopId, r.wallet));
    if (!opened) continue;
    const secrets = JSON.parse(opened) as Record<string, string>;
    if (r.wallet === 'apple') {
      out.apple = {
        passTypeIdentifier: r.settings.passTypeIdentifier!,
        teamIdentifier: r.settings.teamIdentifier!,
        organizationName: r.settings.organizationName!,
        signerCertificate: secrets.signerCertificate!,
        signerKey: secrets.signerKey!,
        signerKeyPassphrase: secrets.signerKeyPassphrase,
        wwdrCertificate: secrets.wwdrCertificate!,
      };
    } else {
      out.google = {
        issuerId: r.settings.issuerId!,
        classId: r.settings.classId!,
        serviceAccountEmail: r.settings.serviceAccountEmail!,
        privateKey: secrets.privateKey!,
      };
    }
  }
  return out;
}
