/** `tessera network …`: the sandbox card network (key pair, JWKS, trust-list entry) and mandate signing. */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { Config } from './kernel/config.ts';
import {
  draftMandate,
  initSandboxNetwork,
  signSandboxMandate,
  type SandboxAlgorithm,
} from './mandates/sandbox-network.ts';
import { trustListLocation } from './mandates/trust-list.ts';

export const NETWORK_USAGE = `  network init [--dir DIR] [--alg EdDSA|ES256] [--rotate]
                             Create (or rotate) the sandbox network's signing key and trust it.
  network draft --merchant SHOP --amount MINOR [--currency EUR] [--ttl SECONDS]
                             Print an example mandate artefact.
  network sign --mandate FILE [--dir DIR] [--merchant SHOP]
                             Sign a mandate's exact bytes (detached JWS, b64:false); prints the signed mandate
                             {payload, signature} for purchase_initiate, or with --merchant a verify request body.`;

/** Runs a network subcommand; returns the text to print. Throws Error with a usage message on bad input. */
export async function networkCommand(config: Config, args: string[]): Promise<string> {
  const [sub, ...rest] = args;
  const defaultDir = join(resolve(config.dataDir), 'sandbox-network');
  if (sub === 'init') {
    const { values } = parseArgs({
      args: rest,
      options: { dir: { type: 'string' }, alg: { type: 'string' }, rotate: { type: 'boolean' } },
    });
    const alg = (values.alg ?? 'EdDSA') as SandboxAlgorithm;
    if (alg !== 'EdDSA' && alg !== 'ES256') throw new UsageError('--alg must be EdDSA or ES256');
    const result = await initSandboxNetwork({
      dir: values.dir ?? defaultDir,
      alg,
      rotate: values.rotate ?? false,
      trustList: trustListLocation(config).path,
    });
    return result.summary;
  }
  if (sub === 'draft') {
    const { values } = parseArgs({
      args: rest,
      options: {
        merchant: { type: 'string' },
        amount: { type: 'string' },
        currency: { type: 'string' },
        ttl: { type: 'string' },
      },
    });
    const amountMinor = Number(values.amount);
    if (!values.merchant || !Number.isInteger(amountMinor) || amountMinor <= 0) {
      throw new UsageError('network draft needs --merchant SHOP and --amount (a positive integer in minor units)');
    }
    const currency = (values.currency ?? 'EUR').toUpperCase();
    const ttl = values.ttl === undefined ? undefined : Number(values.ttl);
    return draftMandate({
      merchantId: values.merchant,
      amountMinor,
      currency,
      now: new Date(),
      ...(ttl ? { ttlSeconds: ttl } : {}),
    }).trimEnd();
  }
  if (sub === 'sign') {
    const { values } = parseArgs({
      args: rest,
      options: { dir: { type: 'string' }, mandate: { type: 'string' }, merchant: { type: 'string' } },
    });
    if (!values.mandate) throw new UsageError('network sign needs --mandate FILE');
    const signed = await signSandboxMandate({
      dir: values.dir ?? defaultDir,
      payload: readFileSync(values.mandate, 'utf8'),
    });
    // Without --merchant: exactly purchase_initiate's `mandate` (it refuses any other field, merchantId included).
    const { payload, signature } = signed;
    const body = values.merchant ? { payload, signature, merchantId: values.merchant } : { payload, signature };
    return JSON.stringify(body, null, 2);
  }
  throw new UsageError(`network needs a subcommand: init, draft or sign\n${NETWORK_USAGE}`);
}

export class UsageError extends Error {}
