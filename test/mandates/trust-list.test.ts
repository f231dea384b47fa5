/**
 * Loading the mandate trust list: start-up errors name MANDATE_TRUST_LIST; the default location is optional; bad keys
 * are ignored.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { ManualClock } from '../../src/kernel/clock.ts';
import { TrustList } from '../../src/mandates/trust-list.ts';
import { makeKey } from '../support/independent-signer.ts';

const log = pino({ level: 'silent' });
const clock = new ManualClock();

function withDir(fn: (dir: string) => Promise<void>) {
  return async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tessera-trust-list-'));
    try {
      await fn(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

test(
  'an explicit MANDATE_TRUST_LIST that is missing or invalid stops start-up, naming the variable',
  withDir(async (dir) => {
    const path = join(dir, 'trust.json');
    await assert.rejects(
      TrustList.open({ path, required: true, clock, log }),
      /MANDATE_TRUST_LIST: the file .* does not exist/,
    );
    writeFileSync(path, '{"networks":[{"id":"x","name":"X"}]}');
    await assert.rejects(
      TrustList.open({ path, required: true, clock, log }),
      /MANDATE_TRUST_LIST: .*exactly one of jwksUrl, jwks or jwksFile/,
    );
    writeFileSync(path, '{"networks":[{"id":"x","name":"X","jwksUrl":"http://keys.example.com/jwks.json"}]}');
    await assert.rejects(TrustList.open({ path, required: true, clock, log }), /https/);
  }),
);

test(
  'the default location may be absent (no network trusted) and is picked up once written',
  withDir(async (dir) => {
    const path = join(dir, 'mandate-trust-list.json');
    const list = await TrustList.open({ path, required: false, clock, log });
    assert.equal(await list.network('sandbox'), undefined);
    const key = makeKey('EdDSA');
    writeFileSync(
      path,
      JSON.stringify({ networks: [{ id: 'sandbox', name: 'Sandbox', jwks: { keys: [key.publicJwk] } }] }),
    );
    const network = await list.network('sandbox');
    assert.equal(network?.name, 'Sandbox');
    assert.equal((await network!.findKey(key.kid))?.kid, key.kid);
  }),
);

test(
  'keys that are private, symmetric, without kid or not for signing are never used',
  withDir(async (dir) => {
    const good = makeKey('ES256');
    const leaked = makeKey('EdDSA');
    const privateJwk = { ...leaked.privateKey.export({ format: 'jwk' }), kid: 'leaked' };
    const keys = [
      good.publicJwk,
      privateJwk,
      { kty: 'oct', k: 'c2VjcmV0', kid: 'hmac' },
      { ...makeKey('EdDSA').publicJwk, kid: undefined },
      { ...makeKey('EdDSA').publicJwk, kid: 'enc', use: 'enc' },
    ];
    const path = join(dir, 'trust.json');
    writeFileSync(path, JSON.stringify({ networks: [{ id: 'n', name: 'N', jwks: { keys } }] }));
    const network = await (await TrustList.open({ path, required: true, clock, log })).network('n');
    assert.equal((await network!.findKey(good.kid))?.kid, good.kid);
    for (const kid of ['leaked', 'hmac', 'enc']) assert.equal(await network!.findKey(kid), undefined, kid);
  }),
);
