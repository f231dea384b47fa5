/**
 * The sealed-value box (src/webhooks/secret-box.ts): a sealed value opens only with its binding, and only in its one
 * canonical spelling. Download links are sealed values, so a link altered in base64url's unused last bits must not
 * still open (it did, for about one link in twenty).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SecretBox } from '../../src/webhooks/secret-box.ts';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const box = new SecretBox('a-test-server-secret-of-enough-length');

test('a sealed value opens with its binding only, and every other spelling of its bytes is refused', () => {
  // 1 byte of plaintext + 16 of tag = 17 bytes: the last character carries 2 unused bits.
  const sealed = box.seal('x', 'bound-to');
  assert.equal(box.open(sealed, 'bound-to'), 'x');
  assert.equal(box.open(sealed, 'another'), undefined);
  const last = ALPHABET.indexOf(sealed.at(-1)!);
  for (const flip of [1, 2, 3]) {
    const respelt = sealed.slice(0, -1) + ALPHABET[last ^ flip];
    assert.deepEqual(Buffer.from(respelt.split('.')[2]!, 'base64url'), Buffer.from(sealed.split('.')[2]!, 'base64url'));
    assert.equal(box.open(respelt, 'bound-to'), undefined, `unused bits flipped by ${flip}`);
  }
  // The iv (12 bytes) has no unused bits, but padding or a fourth part is another spelling too.
  const [v, iv, body] = sealed.split('.');
  assert.equal(box.open(`${v}.${iv}=.${body}`, 'bound-to'), undefined);
  assert.equal(box.open(`${sealed}.x`, 'bound-to'), undefined);
});
