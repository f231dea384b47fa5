/** Wire schemas of a shop's wallet-pass settings (Apple Wallet, Google Wallet). */
import { z } from 'zod';
import { secret } from '../../kernel/secret-fields.ts';

const Pem = (what: string) => z.string().min(1).max(20_000).describe(what);

export const AppleWalletIn = z
  .strictObject({
    passTypeIdentifier: z.string().min(1).max(255).describe('The pass type id, e.g. pass.com.example.tickets.'),
    teamIdentifier: z.string().min(1).max(20).describe('The 10-character Apple team id.'),
    organizationName: z.string().min(1).max(100).optional().describe('Shown on the pass; default the shop’s name.'),
    signerCertificate: Pem('The pass type certificate (PEM).'),
    signerKey: secret(Pem('Its private key (PEM); never shown again.')),
    signerKeyPassphrase: secret(z.string().min(1).max(255).optional().describe('The key’s passphrase, if any.')),
    wwdrCertificate: Pem('Apple’s WWDR intermediate certificate (PEM).'),
  })
  .describe('Apple Wallet signing; null switches Apple Wallet passes off.');

export const GoogleWalletIn = z
  .strictObject({
    issuerId: z.string().min(1).max(30).describe('The Google Wallet issuer id (digits).'),
    classId: z.string().min(1).max(255).describe('The event-ticket class, "<issuerId>.<suffix>".'),
    serviceAccountEmail: z.string().min(3).max(255).describe('The service account that signs save links.'),
    privateKey: secret(Pem('The service account’s RSA private key (PEM); never shown again.')),
  })
  .describe('Google Wallet signing; null switches Google Wallet save links off.');

const Dates = { configuredAt: z.string().max(40), updatedAt: z.string().max(40) };

export const WalletSettingsOut = z.object({
  merchantId: z.string().max(100),
  apple: z
    .object({
      enabled: z.literal(true),
      passTypeIdentifier: z.string().max(255),
      teamIdentifier: z.string().max(20),
      organizationName: z.string().max(100),
      certificateSubject: z.string().max(2000).describe('The signer certificate’s subject.'),
      certificateExpiresAt: z.string().max(40).describe('RFC 3339: when the signer certificate expires.'),
      ...Dates,
    })
    .nullable()
    .describe('null: Apple Wallet passes are off (the default).'),
  google: z
    .object({
      enabled: z.literal(true),
      issuerId: z.string().max(30),
      classId: z.string().max(255),
      serviceAccountEmail: z.string().max(255),
      ...Dates,
    })
    .nullable()
    .describe('null: Google Wallet save links are off (the default).'),
});
