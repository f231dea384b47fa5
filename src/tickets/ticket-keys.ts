/**
 * The keys that sign ticket codes: Ed25519 (JWS `EdDSA`, via jose), one active at a time, every key ever
 * used published in a JWKS so codes issued before a rotation keep verifying. Private keys are sealed at
 * rest (AES-256-GCM, key derived from the server secret, bound to the key id).
 */
import { createPrivateKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import type { Clock } from '../kernel/clock.ts';
import { sql, type Database } from '../storage/database.ts';
import { newId } from '../storage/ids.ts';
import { SecretBox } from '../webhooks/secret-box.ts';

export const TICKET_CODE_ALG = 'EdDSA';

/** A published verification key (RFC 7517 JWK) with its id and use. */
export type PublicTicketKey = JWK & { kid: string; alg: string; use: 'sig'; crv: string; x: string; kty: string };

interface KeyRow {
  kid: string;
  public_jwk: PublicTicketKey;
  private_jwk_sealed: string;
  created_at: Date;
  retired_at: Date | null;
}

/**
 * An active signing key, ready to sign: a node:crypto KeyObject, which node:crypto's `sign` and jose both take. (A
 * WebCrypto key made a KeyObject printed Node 24's DEP0204 warning: the key was not extractable.)
 */
export interface SigningKey {
  kid: string;
  key: KeyObject;
}

export class TicketKeys {
  private readonly db: Database;
  private readonly clock: Clock;
  private readonly box: SecretBox;
  private readonly cache = new Map<string, KeyObject>();

  constructor(deps: { db: Database; clock: Clock; serverSecret: string }) {
    this.db = deps.db;
    this.clock = deps.clock;
    this.box = new SecretBox(deps.serverSecret, 'tessera/ticket-signing-keys');
  }

  /** Makes sure a signing key is active (the first start creates one; concurrent starts agree on one). */
  async ensureActive(): Promise<void> {
    const rows = await this.db.execute<{ kid: string }>('select kid from ticket_signing_keys where retired_at is null');
    if (rows.length === 0) await this.insertKey();
  }

  /**
   * Retires the active key and activates a new one. Retired keys stay in the JWKS: tickets signed with them
   * keep verifying. Returns the new key id. Concurrent rotations run one after the other (a transaction-scoped
   * advisory lock): each then sees and retires the key the one before it activated, so all succeed and one key stays
   * active. Without the lock the second one's update missed the first one's new key, and its insert broke the
   * one-active index (a 500). Undefined, and nothing changed, when `maxKeys` keys are kept already.
   */
  async rotate(maxKeys = Infinity): Promise<string | undefined> {
    const now = this.clock.now();
    const kid = newId('ticketKey', now);
    const sealed = await this.newSealedKey(kid);
    const rotated = await this.db.transaction(async (em) => {
      await sql(em, 'select pg_advisory_xact_lock(hashtextextended(?, 0))', ['ticket-signing-keys:rotate']);
      const [kept] = await sql<{ n: number }>(em, 'select count(*)::int as n from ticket_signing_keys');
      if ((kept?.n ?? 0) >= maxKeys) return false;
      await sql(em, 'update ticket_signing_keys set retired_at = ? where retired_at is null', [now]);
      await sql(
        em,
        'insert into ticket_signing_keys (kid, alg, public_jwk, private_jwk_sealed, created_at) values (?, ?, ?::jsonb, ?, ?)',
        [kid, TICKET_CODE_ALG, JSON.stringify(sealed.publicJwk), sealed.sealed, now],
      );
      return true;
    });
    return rotated ? kid : undefined;
  }

  /**
   * The active key (the private key imported once per process per key id). Inside a transaction pass its `em`: the
   * read then runs on the transaction's own connection. Taking a second pooled connection while holding one
   * deadlocks once every connection is held by a caller doing the same (48 concurrent confirms on a pool of 10 did).
   */
  async active(em?: EntityManager): Promise<SigningKey> {
    // Only the id is read per call (the active key is read every time, so a rotation by any process is seen at once);
    // the sealed private key is read and opened once per key id.
    const [row] = await this.read<{ kid: string }>(em, 'select kid from ticket_signing_keys where retired_at is null');
    if (!row) throw new Error('no active ticket-signing key');
    return this.byKid(row.kid, em);
  }

  /**
   * The key `kid` that the caller has just read as the active one (e.g. in a statement of its own): opened from memory
   * once this process has opened it, else read (on `em`'s connection when given) and opened once.
   */
  async byKid(kid: string, em?: EntityManager): Promise<SigningKey> {
    const cached = this.cache.get(kid);
    if (cached) return { kid, key: cached };
    const [full] = await (em
      ? sql<KeyRow>(em, 'select * from ticket_signing_keys where kid = ?', [kid])
      : this.db.execute<KeyRow>('select * from ticket_signing_keys where kid = ?', [kid]));
    if (!full) throw new Error('no active ticket-signing key');
    return { kid: full.kid, key: this.privateKey(full) };
  }

  /** Every published key, oldest first (the JWKS `keys`); inside a transaction pass its `em` (see `active`). */
  async publicKeys(em?: EntityManager): Promise<PublicTicketKey[]> {
    const rows = await this.read<KeyRow>(
      em,
      'select kid, public_jwk from ticket_signing_keys order by created_at, kid',
    );
    return rows.map((r) => r.public_jwk);
  }

  private read<R>(em: EntityManager | undefined, text: string): Promise<R[]> {
    return em ? sql<R>(em, text) : this.db.execute<R>(text);
  }

  private privateKey(row: KeyRow): KeyObject {
    const cached = this.cache.get(row.kid);
    if (cached) return cached;
    const opened = this.box.open(row.private_jwk_sealed, row.kid);
    if (!opened) throw new Error(`ticket-signing key ${row.kid} does not open with this server's secret`);
    const key = createPrivateKey({ key: JSON.parse(opened) as JsonWebKey, format: 'jwk' });
    this.cache.set(row.kid, key);
    return key;
  }

  private async insertKey(): Promise<void> {
    const now = this.clock.now();
    const kid = newId('ticketKey', now);
    const { publicJwk, sealed } = await this.newSealedKey(kid);
    await this.db.execute(
      `insert into ticket_signing_keys (kid, alg, public_jwk, private_jwk_sealed, created_at) values (?, ?, ?::jsonb, ?, ?)
        on conflict do nothing`,
      [kid, TICKET_CODE_ALG, JSON.stringify(publicJwk), sealed, now],
    );
  }

  private async newSealedKey(kid: string): Promise<{ publicJwk: PublicTicketKey; sealed: string }> {
    const { publicKey, privateKey } = await generateKeyPair(TICKET_CODE_ALG, { crv: 'Ed25519', extractable: true });
    const pub = await exportJWK(publicKey);
    const publicJwk = { kty: pub.kty!, crv: pub.crv!, x: pub.x!, kid, alg: TICKET_CODE_ALG, use: 'sig' as const };
    return { publicJwk, sealed: this.box.seal(JSON.stringify(await exportJWK(privateKey)), kid) };
  }
}
