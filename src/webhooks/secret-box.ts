/**
 * Seals webhook signing secrets at rest with AES-256-GCM. The key is derived (HKDF-SHA256) from the
 * server secret (TESSERA_SECRET, else the one kept in the settings table), and each sealed value is
 * bound to its subscription id, so a ciphertext copied to another row does not open.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const VERSION = 'v1';

export class SecretBox {
  private readonly key: Buffer;

  /** `purpose` separates the keys of different uses of the box (webhook secrets by default, ticket-signing keys, …). */
  constructor(serverSecret: string, purpose = 'tessera/webhook-signing-secrets') {
    this.key = Buffer.from(hkdfSync('sha256', serverSecret, Buffer.alloc(0), purpose, 32));
  }

  /** `v1.<iv>.<ciphertext+tag>` (base64url parts). */
  seal(plaintext: string, boundTo: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(boundTo, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return `${VERSION}.${iv.toString('base64url')}.${body.toString('base64url')}`;
  }

  /**
   * The plaintext, or undefined when the value does not open with this server's key. Only the canonical spelling
   * opens: base64url's last character carries unused bits, and a sealed value used as a link must have one form.
   */
  open(sealed: string, boundTo: string): string | undefined {
    const [version, ivPart, bodyPart, extra] = sealed.split('.');
    if (version !== VERSION || !ivPart || !bodyPart || extra !== undefined) return undefined;
    const iv = Buffer.from(ivPart, 'base64url');
    const body = Buffer.from(bodyPart, 'base64url');
    if (iv.toString('base64url') !== ivPart || body.toString('base64url') !== bodyPart) return undefined;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, iv);
      decipher.setAAD(Buffer.from(boundTo, 'utf8'));
      decipher.setAuthTag(body.subarray(body.length - 16));
      return Buffer.concat([decipher.update(body.subarray(0, body.length - 16)), decipher.final()]).toString('utf8');
    } catch {
      return undefined;
    }
  }
}
