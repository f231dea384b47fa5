/**
 * The detached-JWS verifier against published vectors (RFC 7797 §4, RFC 7520 §4.5), with the algorithm list each test
 * gives.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { JWK } from 'jose';
import {
  JwsVerificationError,
  verifyDetachedJws,
  type JwsFailure,
  type DetachedJwsInput,
} from '../../src/mandates/verify-detached-jws.ts';

interface Vector {
  key: JWK;
  payload: string;
  jws: string;
  protectedHeader?: string;
  payloadB64?: string;
}
const vectors = JSON.parse(
  readFileSync(new URL('../fixtures/jws-detached-vectors.json', import.meta.url), 'utf8'),
) as Record<string, Vector>;
const rfc7797 = vectors.rfc7797_4_2!;
const rfc7797Encoded = vectors.rfc7797_4_1_detached!;
const rfc7520 = vectors.rfc7520_4_5!;

const ASYMMETRIC = ['EdDSA', 'ES256', 'PS256'];
const b64u = (s: string) => Buffer.from(s).toString('base64url');

function verify(v: Vector, over: Partial<DetachedJwsInput> = {}) {
  return verifyDetachedJws({ jws: v.jws, payload: v.payload, algorithms: ['HS256'], resolveKey: () => v.key, ...over });
}

async function refused(p: Promise<unknown>, failure: JwsFailure): Promise<void> {
  await assert.rejects(p, (err: { failure?: string; message: string }) => {
    assert.equal(err.failure, failure, err.message);
    return true;
  });
}

test('RFC 7797 §4.2: the b64:false detached vector verifies when the list includes HS256', async () => {
  const [encodedHeader] = rfc7797.jws.split('.');
  assert.equal(Buffer.from(encodedHeader!, 'base64url').toString(), rfc7797.protectedHeader);
  const out = await verify(rfc7797);
  assert.equal(out.b64, false);
  assert.deepEqual(out.header, { alg: 'HS256', b64: false, crit: ['b64'] });
  assert.equal(new TextDecoder().decode(out.payload), '$.02');
});

test('RFC 7797 §4.2: the same vector is refused when the list is asymmetric only', async () => {
  await refused(verify(rfc7797, { algorithms: ASYMMETRIC }), 'alg_not_allowed');
});

test('RFC 7797 §4.2: a changed payload byte fails the signature', async () => {
  await refused(verify(rfc7797, { payload: '$.03' }), 'signature_invalid');
  await refused(verify(rfc7797, { payload: '$.02 ' }), 'signature_invalid');
});

test('RFC 7797 §4.1 detached: the base64url-encoded form verifies, and its signature does not fit the b64:false header', async () => {
  const out = await verify(rfc7797Encoded);
  assert.equal(out.b64, true);
  assert.equal(new TextDecoder().decode(out.payload), '$.02');
  const [unencodedHeader] = rfc7797.jws.split('.');
  const [, , encodedSig] = rfc7797Encoded.jws.split('.');
  await refused(verify(rfc7797, { jws: `${unencodedHeader}..${encodedSig}` }), 'signature_invalid');
});

test('RFC 7520 §4.5: the detached-content vector verifies with the key its kid names', async () => {
  assert.equal(b64u(rfc7520.payload), rfc7520.payloadB64);
  const keys = new Map([[rfc7520.key.kid!, rfc7520.key]]);
  const out = await verify(rfc7520, {
    resolveKey: (h) => {
      const key = h.kid ? keys.get(h.kid) : undefined;
      assert.ok(key);
      return key;
    },
  });
  assert.equal(out.b64, true);
  assert.deepEqual(out.header, JSON.parse(rfc7520.protectedHeader!));
  assert.equal(new TextDecoder().decode(out.payload), rfc7520.payload);
});

test('RFC 7520 §4.5: refused with an asymmetric-only list, or with the payload’s curly apostrophes straightened', async () => {
  await refused(verify(rfc7520, { algorithms: ASYMMETRIC }), 'alg_not_allowed');
  await refused(verify(rfc7520, { payload: rfc7520.payload.replaceAll('\u2019', "'") }), 'signature_invalid');
});

test('a missing or empty detached payload is payload_missing', async () => {
  await refused(verify(rfc7797, { payload: undefined }), 'payload_missing');
  await refused(verify(rfc7520, { payload: '' }), 'payload_missing');
});

test('a JWS carrying its payload, not in three parts, or with a repeated header member is malformed', async () => {
  await refused(
    verify(rfc7797Encoded, { jws: 'eyJhbGciOiJIUzI1NiJ9.JC4wMg.5mvfOroL-g7HyqJoozehmsaqmvTYGEq5jTI1gVvoEoQ' }),
    'malformed',
  );
  await refused(verify(rfc7797, { jws: rfc7797.jws.replace('..', '.') }), 'malformed');
  await refused(verify(rfc7797, { jws: `${b64u('not json')}..${rfc7797.jws.split('..')[1]}` }), 'malformed');
  const sig = rfc7797.jws.split('..')[1]!;
  await refused(
    verify(rfc7797, { jws: `${b64u('{"alg":"HS256","alg":"EdDSA","b64":false,"crit":["b64"]}')}..${sig}` }),
    'malformed',
  );
});

test('alg none is refused even when the list names it', async () => {
  const jws = `${b64u('{"alg":"none"}')}..`;
  await refused(verify(rfc7797, { jws: `${jws}AAAA`, algorithms: ['none', 'HS256'] }), 'alg_not_allowed');
  await refused(verify(rfc7797, { jws, algorithms: ['none', 'HS256'] }), 'alg_not_allowed');
});

test('b64 without crit, an unknown crit name, and a crit name that is absent are each refused', async () => {
  const sig = rfc7797.jws.split('..')[1]!;
  await refused(verify(rfc7797, { jws: `${b64u('{"alg":"HS256","b64":false}')}..${sig}` }), 'b64_without_crit');
  await refused(
    verify(rfc7797, { jws: `${b64u('{"alg":"HS256","b64":false,"crit":["b64","exp"],"exp":1}')}..${sig}` }),
    'crit_unsupported',
  );
  await refused(verify(rfc7797, { jws: `${b64u('{"alg":"HS256","crit":["b64"]}')}..${sig}` }), 'malformed');
  // A caller that understands an extra parameter may accept it (the signature then decides).
  await refused(
    verify(rfc7797, {
      jws: `${b64u('{"alg":"HS256","b64":false,"crit":["b64","exp"],"exp":1}')}..${sig}`,
      understoodCrit: ['b64', 'exp'],
    }),
    'signature_invalid',
  );
});

test('a key the resolver does not know surfaces as kid_unknown', async () => {
  await refused(
    verify(rfc7520, {
      resolveKey: (h) => {
        throw new JwsVerificationError('kid_unknown', `no key ${h.kid}`);
      },
    }),
    'kid_unknown',
  );
});
