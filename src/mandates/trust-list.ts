/**
 * The mandate trust list: the signing networks whose detached signatures are accepted, and where
 * each one's JWKS comes from (a URL, a file or inline). Read from MANDATE_TRUST_LIST (default
 * `<TESSERA_DATA_DIR>/mandate-trust-list.json`); edits to the file apply without a restart.
 */
import { readFile, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { JWK } from 'jose';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { Config } from '../kernel/config.ts';
import type { Clock } from '../kernel/clock.ts';
import { ToolError } from '../kernel/errors.ts';
import { JwksCache, type JwksSource } from './jwks-cache.ts';
import { NETWORK_ID } from './mandate.ts';

const MAX_JWKS_BYTES = 512 * 1024;

const TrustListEntry = z
  .strictObject({
    id: z.string().regex(NETWORK_ID, 'must be lower case letters, digits, ".", "_" or "-"'),
    name: z.string().min(1).max(200),
    jwksUrl: z.url({ protocol: /^https?$/ }).optional(),
    jwks: z.looseObject({ keys: z.array(z.record(z.string(), z.unknown())) }).optional(),
    jwksFile: z.string().min(1).optional(),
  })
  .refine((n) => [n.jwksUrl, n.jwks, n.jwksFile].filter((v) => v !== undefined).length === 1, {
    message: 'give exactly one of jwksUrl, jwks or jwksFile',
  })
  .refine((n) => !n.jwksUrl || isAllowedJwksUrl(n.jwksUrl), {
    message: 'jwksUrl must be https (http only for localhost)',
  });

/** The trust-list file: `{ "networks": [{ id, name, jwksUrl | jwks | jwksFile }] }`. */
export const TrustListFile = z
  .strictObject({ networks: z.array(TrustListEntry).max(100) })
  .refine((f) => new Set(f.networks.map((n) => n.id)).size === f.networks.length, {
    message: 'network ids must be unique',
  });
export type TrustListEntry = z.infer<typeof TrustListEntry>;
export type TrustListFile = z.infer<typeof TrustListFile>;

/** A network in the trust list, with its cached keys. */
export interface TrustedNetwork {
  id: string;
  name: string;
  findKey(kid: string): Promise<JWK | undefined>;
}

export function isAllowedJwksUrl(url: string): boolean {
  const u = new URL(url);
  return u.protocol === 'https:' || ['localhost', '127.0.0.1', '[::1]'].includes(u.hostname);
}

/** Where the trust list lives; `required` when MANDATE_TRUST_LIST names it explicitly. */
export function trustListLocation(config: Config): { path: string; required: boolean } {
  if (config.mandateTrustList) return { path: resolve(config.mandateTrustList), required: true };
  return { path: resolve(join(config.dataDir, 'mandate-trust-list.json')), required: false };
}

async function fetchJwks(url: string): Promise<unknown> {
  const res = await fetch(url, {
    headers: { accept: 'application/jwk-set+json, application/json' },
    redirect: 'error',
    signal: AbortSignal.timeout(5000),
  });
  if (!res.ok) throw new Error(`HTTP ${res.status}`);
  const text = await res.text();
  if (text.length > MAX_JWKS_BYTES) throw new Error('the JWKS is too large');
  return JSON.parse(text);
}

async function readJwksFile(path: string): Promise<unknown> {
  const info = await stat(path);
  if (info.size > MAX_JWKS_BYTES) throw new Error('the JWKS file is too large');
  return JSON.parse(await readFile(path, 'utf8'));
}

/** Parses trust-list JSON text, or throws an Error whose message says what is wrong. */
export function parseTrustList(text: string, path: string): TrustListFile {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error(`The mandate trust list ${path} is not valid JSON.`);
  }
  const parsed = TrustListFile.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(
      `The mandate trust list ${path} is invalid at ${issue.path.join('.') || '(root)'}: ${issue.message}`,
    );
  }
  return parsed.data;
}

export class TrustList {
  private readonly path: string;
  private readonly clock: Clock;
  private readonly log: Logger;
  private version = '';
  private networks = new Map<string, TrustedNetwork>();
  private caches = new Map<string, JwksCache>();

  private constructor(path: string, clock: Clock, log: Logger) {
    this.path = path;
    this.clock = clock;
    this.log = log;
  }

  /**
   * Opens the trust list at `path`. When `required` (MANDATE_TRUST_LIST was set) a missing or invalid
   * file is a start-up error naming the variable; otherwise a missing file means no network is trusted
   * yet, and an invalid one makes verifications fail with `mandate_trust_unavailable` until it is fixed.
   */
  static async open(opts: { path: string; required: boolean; clock: Clock; log: Logger }): Promise<TrustList> {
    const list = new TrustList(opts.path, opts.clock, opts.log);
    try {
      await list.sync();
    } catch (err) {
      const missing = (err as NodeJS.ErrnoException).code === 'ENOENT';
      const why = missing ? `the file ${opts.path} does not exist` : err instanceof Error ? err.message : String(err);
      if (opts.required) throw new Error(`MANDATE_TRUST_LIST: ${why}`);
      // The default location is not configuration: a bad file there fails verifications (closed), not start-up.
      if (!missing)
        opts.log.error({ path: opts.path, reason: why }, 'mandate trust list unreadable; no network is trusted');
    }
    return list;
  }

  /** The trusted network `id`, or undefined. Re-reads the file first when it changed on disk. */
  async network(id: string): Promise<TrustedNetwork | undefined> {
    try {
      await this.sync();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
        this.replace({ networks: [] }, 'absent');
      } else {
        this.log.error(
          { path: this.path, reason: err instanceof Error ? err.message : String(err) },
          'mandate trust list unreadable',
        );
        throw new ToolError(
          'mandate_trust_unavailable',
          'The mandate trust list cannot be read right now; retry later.',
          undefined,
          30,
        );
      }
    }
    return this.networks.get(id);
  }

  /** The ids of the trusted networks, as last read. */
  ids(): string[] {
    return [...this.networks.keys()];
  }

  private async sync(): Promise<void> {
    const info = await stat(this.path);
    const version = `${info.mtimeMs}:${info.size}:${info.ino}`;
    if (version === this.version) return;
    this.replace(parseTrustList(await readFile(this.path, 'utf8'), this.path), version);
  }

  /** Installs a parsed list, keeping the key caches of networks whose definition did not change. */
  private replace(file: TrustListFile, version: string): void {
    const base = dirname(this.path);
    const networks = new Map<string, TrustedNetwork>();
    const caches = new Map<string, JwksCache>();
    for (const entry of file.networks) {
      const signature = JSON.stringify(entry);
      const cache = this.caches.get(signature) ?? this.cacheFor(entry, base);
      caches.set(signature, cache);
      networks.set(entry.id, { id: entry.id, name: entry.name, findKey: (kid) => cache.find(kid) });
    }
    this.networks = networks;
    this.caches = caches;
    this.version = version;
  }

  private cacheFor(entry: TrustListEntry, base: string): JwksCache {
    if (entry.jwksUrl) {
      const url = entry.jwksUrl;
      const source: JwksSource = { describe: url, load: () => fetchJwks(url) };
      return new JwksCache(source, this.clock, this.log, { maxAgeMs: 10 * 60_000, cooldownMs: 30_000 });
    }
    if (entry.jwksFile) {
      const file = resolve(base, entry.jwksFile);
      return new JwksCache({ describe: file, load: () => readJwksFile(file) }, this.clock, this.log, {
        maxAgeMs: 30_000,
        cooldownMs: 0,
      });
    }
    const inline = entry.jwks;
    return new JwksCache({ describe: `inline JWKS of ${entry.id}`, load: async () => inline }, this.clock, this.log);
  }
}
