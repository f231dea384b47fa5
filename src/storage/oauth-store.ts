/**
 * The OAuth server's persistence in PostgreSQL (the adapter interface oidc-provider expects), so every server
 * process shares clients, codes, tokens, sessions and interactions. Ids are stored as SHA-256 hashes and payloads
 * without them: a code's or a token's id is the bearer value, never kept in clear.
 */
import { hashToken } from '../kernel/tokens.ts';
import type { Database } from './database.ts';

type Payload = Record<string, unknown>;

/** The field of each payload that repeats the model's id (put back on read). */
const ID_FIELD: Record<string, string> = { Client: 'client_id' };

/** One model's records (`kind` is the oidc-provider model name: AccessToken, Client, Grant, Session, …). */
export class OAuthStore {
  private readonly db: Database;
  private readonly kind: string;

  constructor(db: Database, kind: string) {
    this.db = db;
    this.kind = kind;
  }

  private idField(): string {
    return ID_FIELD[this.kind] ?? 'jti';
  }

  async upsert(id: string, payload: Payload, expiresIn?: number): Promise<void> {
    const stored = { ...payload };
    delete stored[this.idField()];
    const expiresAt = typeof expiresIn === 'number' ? new Date(Date.now() + expiresIn * 1000) : null;
    await this.db.execute(
      `insert into oauth_records (kind, id_hash, payload, grant_id, uid, expires_at, consumed_at)
       values (?, ?, ?::jsonb, ?, ?, ?, null)
       on conflict (kind, id_hash) do update set payload = excluded.payload, grant_id = excluded.grant_id, uid = excluded.uid, expires_at = excluded.expires_at`,
      [
        this.kind,
        hashToken(id),
        JSON.stringify(stored),
        (payload.grantId as string | undefined) ?? null,
        (payload.uid as string | undefined) ?? null,
        expiresAt,
      ],
    );
  }

  private async one(where: string, value: string): Promise<Payload | undefined> {
    const [row] = await this.db.execute<{ id_hash: string; payload: Payload; consumed_at: Date | string | null }>(
      `select id_hash, payload, consumed_at from oauth_records where kind = ? and ${where} = ? and (expires_at is null or expires_at > now())`,
      [this.kind, value],
    );
    if (!row) return undefined;
    const payload = typeof row.payload === 'string' ? (JSON.parse(row.payload) as Payload) : row.payload;
    if (row.consumed_at) payload.consumed = Math.floor(new Date(row.consumed_at).getTime() / 1000);
    return payload;
  }

  async find(id: string): Promise<Payload | undefined> {
    const payload = await this.one('id_hash', hashToken(id));
    return payload && { ...payload, [this.idField()]: id };
  }

  /**
   * Sessions by their uid; the id (the cookie value) is not recoverable from its hash, so only the uid is returned with
   * it.
   */
  async findByUid(uid: string): Promise<Payload | undefined> {
    return this.one('uid', uid);
  }

  async findByUserCode(): Promise<undefined> {
    return undefined; // the device flow is not enabled
  }

  /**
   * Marks a code or refresh token used, once: true for the one call that did, false when it was used (or removed)
   * already, so of concurrent exchanges of one code or refreshes of one token exactly one goes on.
   */
  async consumeOnce(id: string): Promise<boolean> {
    const rows = await this.db.execute(
      'update oauth_records set consumed_at = now() where kind = ? and id_hash = ? and consumed_at is null returning 1',
      [this.kind, hashToken(id)],
    );
    return rows.length === 1;
  }

  async consume(id: string): Promise<void> {
    await this.consumeOnce(id);
  }

  /** The grant a record belongs to (codes and tokens), if it is still stored. */
  async grantOf(id: string): Promise<string | undefined> {
    const [row] = await this.db.execute<{ grant_id: string | null }>(
      'select grant_id from oauth_records where kind = ? and id_hash = ?',
      [this.kind, hashToken(id)],
    );
    return row?.grant_id ?? undefined;
  }

  async destroy(id: string): Promise<void> {
    await this.db.execute('delete from oauth_records where kind = ? and id_hash = ?', [this.kind, hashToken(id)]);
  }

  /**
   * Records `id` of this kind unless it is recorded already (live); true when this call recorded it. A claim: only one
   * of any number of concurrent callers gets true.
   */
  async claim(id: string, expiresIn: number): Promise<boolean> {
    await this.db.execute('delete from oauth_records where kind = ? and id_hash = ? and expires_at <= now()', [
      this.kind,
      hashToken(id),
    ]);
    const rows = await this.db.execute(
      `insert into oauth_records (kind, id_hash, payload, expires_at) values (?, ?, '{}'::jsonb, now() + make_interval(secs => ?))
       on conflict (kind, id_hash) do nothing returning 1`,
      [this.kind, hashToken(id), expiresIn],
    );
    return rows.length === 1;
  }

  /** Makes a record of `kind` permanent (no expiry): a client that completed a grant is kept. */
  async keep(kind: string, id: string): Promise<void> {
    await this.db.execute(
      'update oauth_records set expires_at = null where kind = ? and id_hash = ? and expires_at is not null',
      [kind, hashToken(id)],
    );
  }

  /** Every code and token of a grant, whatever its model (a replayed code or a revoked refresh token ends them all). */
  async revokeByGrantId(grantId: string): Promise<void> {
    await this.db.execute('delete from oauth_records where grant_id = ?', [grantId]);
  }

  /** The grant itself and everything issued under it (a reuse of a code or refresh token). */
  async revokeGrant(grantId: string): Promise<void> {
    await this.db.execute(`delete from oauth_records where grant_id = ? or (kind = 'Grant' and id_hash = ?)`, [
      grantId,
      hashToken(grantId),
    ]);
  }
}
