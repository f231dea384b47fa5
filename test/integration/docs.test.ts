/**
 * Docs stay true to the code: the error table is generated, documented files exist, every env variable and CLI command
 * is in the README.
 */
import { spawnSync } from 'node:child_process';
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

test('every environment variable src/kernel/config.ts reads is in the README', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const config = readFileSync(join(ROOT, 'src', 'kernel', 'config.ts'), 'utf8');
  const names = [...config.matchAll(/^ {2}([A-Z][A-Z0-9_]+): /gm)].map((m) => m[1]!);
  assert.ok(names.includes('DATABASE_URL') && names.includes('WEBHOOK_DISPATCH_MS'), names.join());
  for (const name of names) assert.ok(readme.includes(`\`${name}\``), `${name} is not in the README`);
});

test('every command and option of `tessera --help` is in the README', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const help = spawnSync(process.execPath, [join(ROOT, 'src', 'cli.ts'), '--help'], {
    encoding: 'utf8',
    timeout: 120_000,
  });
  assert.equal(help.status, 0, help.stderr);
  const commands = [...help.stdout.matchAll(/^ {2}([a-z-]+(?: (?:init|draft|sign))?)\b/gm)].map((m) => m[1]!);
  assert.ok(commands.includes('serve') && commands.includes('network sign'), commands.join());
  for (const command of commands)
    assert.ok(readme.includes(`| \`${command}`), `command ${command} is not in the README`);
  for (const [option] of help.stdout.matchAll(/--[a-z-]+/g))
    assert.ok(readme.includes(option), `option ${option} is not in the README`);
});
