/** Docs stay true to the code: the error table is generated, and every documented file exists. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { errorsMarkdown } from '../../scripts/errors-doc.ts';

const ROOT = join(import.meta.dirname, '..', '..');

test('docs/errors.md equals the closed error table (regenerate with npm run docs:errors)', () => {
  assert.equal(readFileSync(join(ROOT, 'docs', 'errors.md'), 'utf8'), errorsMarkdown());
});

test('every doc the README links to exists', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  for (const [, path] of readme.matchAll(/`(docs\/[\w.-]+\.md)`/g)) assert.ok(existsSync(join(ROOT, path!)), path);
});

test('the README opens with the two set-up commands', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const firstBlock = /```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
  assert.match(firstBlock, /npm install && npm start/);
  assert.match(firstBlock, /npm test/);
});
