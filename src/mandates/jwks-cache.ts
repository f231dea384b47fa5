/**
 * A network's JSON Web Key Set, cached: loaded on first use, refreshed when older than `maxAgeMs`,
 * and refetched at once (at most every `cooldownMs`) when a `kid` is unknown, so key rotation needs
 * no restart. Time comes from the injected clock.
 */
import type { JWK } from 'jose';
import type { Logger } from 'pino';
import type { Clock } from '../kernel/clock.ts';
import { ToolError } from '../kernel/errors.ts';

/** Where a JWKS comes from: a URL, a file or an inline value. `load` returns the parsed JSON. */
export interface JwksSource {
  describe: string;
  load(): Promise<unknown>;
}

export interface JwksCacheOptions {
  maxAgeMs?: number;
  cooldownMs?: number;
  /** How long past `maxAgeMs` cached keys may still be used while the source cannot be reached. */
  maxStaleMs?: number;
}

const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'] as const;
const ASYMMETRIC = ['OKP', 'EC', 'RSA'];

/** The usable verification keys of a JWKS, by kid: public asymmetric signing keys only. */
export function verificationKeys(jwks: unknown, log?: Logger, source = 'JWKS'): Map<string, JWK> {
  const keys = new Map<string, JWK>();
  const list = (jwks as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(list)) throw new Error(`${source} is not a JSON Web Key Set ({ "keys": [...] }).`);
  for (const raw of list) {
    if (typeof raw !== 'object' || raw === null) continue;
    const jwk = raw as JWK & Record<string, unknown>;
    const why = !jwk.kid
      ? 'it has no kid'
      : !ASYMMETRIC.includes(String(jwk.kty))
        ? `kty ${String(jwk.kty)} is not an asymmetric key type`
        : PRIVATE_MEMBERS.some((m) => m in jwk)
          ? 'it contains private key material'
          : jwk.use !== undefined && jwk.use !== 'sig'
            ? `its use is ${String(jwk.use)}`
            : Array.isArray(jwk.key_ops) && !jwk.key_ops.includes('verify')
              ? 'its key_ops exclude verify'
              : keys.has(jwk.kid)
                ? 'its kid repeats an earlier key'
                : undefined;
    if (why) {
      log?.warn({ source, kid: jwk.kid }, `ignoring a key in the mandate JWKS: ${why}`);
      continue;
    }
    keys.set(jwk.kid!, jwk);
  }
  return keys;
}

export class JwksCache {
  private readonly source: JwksSource;
  private readonly clock: Clock;
  private readonly log: Logger | undefined;
  private readonly maxAgeMs: number;
  private readonly cooldownMs: number;
  private readonly maxStaleMs: number;
  private keys: Map<string, JWK> | undefined;
  private loadedAt = 0;
  private attemptedAt = Number.NEGATIVE_INFINITY;
  private failedAt = Number.NEGATIVE_INFINITY;
  private inflight: Promise<void> | undefined;

  constructor(source: JwksSource, clock: Clock, log?: Logger, opts: JwksCacheOptions = {}) {
    this.source = source;
    this.clock = clock;
    this.log = log;
    this.maxAgeMs = opts.maxAgeMs ?? 10 * 60_000;
    this.cooldownMs = opts.cooldownMs ?? 30_000;
    this.maxStaleMs = opts.maxStaleMs ?? 60 * 60_000;
  }

  /** The public key named `kid`, or undefined when the network does not publish it (after one refetch). */
  async find(kid: string): Promise<JWK | undefined> {
    const now = this.clock.now().getTime();
    if (!this.keys || now - this.loadedAt >= this.maxAgeMs) await this.refresh(now);
    let key = this.keys?.get(kid);
    if (!key && now - this.attemptedAt >= this.cooldownMs) {
      await this.refresh(now);
      key = this.keys?.get(kid);
    }
    return key;
  }

  /** Reloads from the source; concurrent callers share one load. */
  private refresh(now: number): Promise<void> {
    this.inflight ??= this.load(now).finally(() => {
      this.inflight = undefined;
    });
    return this.inflight;
  }

  private usable(now: number): boolean {
    return this.keys !== undefined && now - this.loadedAt < this.maxAgeMs + this.maxStaleMs;
  }

  private async load(now: number): Promise<void> {
    if (now - this.failedAt < this.cooldownMs) {
      if (this.usable(now)) return;
      throw unavailable();
    }
    this.attemptedAt = now;
    try {
      this.keys = verificationKeys(await this.source.load(), this.log, this.source.describe);
      this.loadedAt = now;
    } catch (err) {
      this.failedAt = now;
      const usingCached = this.usable(now);
      const reason = err instanceof Error ? err.message : String(err);
      this.log?.warn({ source: this.source.describe, reason, usingCached }, 'mandate JWKS refresh failed');
      if (!usingCached) throw unavailable();
    }
  }
}

function unavailable(): ToolError {
  return new ToolError(
    'mandate_trust_unavailable',
    'The signing network’s keys cannot be loaded right now; retry later.',
    undefined,
    30,
  );
}
