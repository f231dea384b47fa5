/**
 * The SDK's types: generated from the registry (never written twice), and proven at the type level against the BUILT
 * declarations.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GENERATED_PATH, sdkTypesSource } from '../../scripts/sdk-types.ts';
import { buildSdk, SDK_SOURCE, type BuiltSdk } from '../support/built-sdk.ts';
import { verifies } from '../support/requirements.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const FIXTURE = join(import.meta.dirname, 'fixtures', 'typed-usage.ts');

let sdk: BuiltSdk;
before(async () => {
  sdk = await buildSdk();
});
after(() => sdk?.remove());

/** Runs the repository's tsc; returns its exit status and output. */
function tsc(...args: string[]): { status: number | null; out: string } {
  const r = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), ...args], {
    encoding: 'utf8',
    timeout: 240_000,
  });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

/** Type-checks `source` as check.ts in the temp root, where `@tessera/sdk` resolves to the built package. */
function checkAgainstBuilt(source: string): { status: number | null; out: string } {
  writeFileSync(join(sdk.root, 'check.ts'), source);
  writeFileSync(
    join(sdk.root, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'es2022',
        lib: ['es2022', 'dom', 'dom.iterable'],
        module: 'nodenext',
        moduleResolution: 'nodenext',
        strict: true,
        noEmit: true,
        types: [],
      },
      files: ['check.ts'],
    }),
  );
  return tsc('-p', join(sdk.root, 'tsconfig.json'));
}

test('sdk/src/operations.generated.ts is what the registry generates (regenerate with npm run sdk:types)', async () => {
  assert.equal(readFileSync(GENERATED_PATH, 'utf8'), await sdkTypesSource());
});

test('the SDK sources compile alone, without Node types, under isolatedDeclarations', () => {
  const r = tsc('-p', join(SDK_SOURCE, 'tsconfig.json'));
  assert.equal(r.status, 0, r.out);
});

test('the built declarations give the typed client, the attested mint and the browser events (every @ts-expect-error meets an error)', () => {
  const source = readFileSync(FIXTURE, 'utf8');
  const r = checkAgainstBuilt(source);
  assert.equal(r.status, 0, r.out);
});

test('without the @ts-expect-error lines, each line after one is a type error', () => {
  const lines = readFileSync(FIXTURE, 'utf8').split('\n');
  const expected: number[] = [];
  const kept: string[] = [];
  for (const line of lines) {
    if (line.trim().startsWith('// @ts-expect-error')) {
      expected.push(kept.length + 1);
      kept.push('');
    } else kept.push(line);
  }
  assert.ok(expected.length >= 10, 'the fixture has its checks');
  const r = checkAgainstBuilt(kept.join('\n'));
  assert.notEqual(r.status, 0);
  const errorLines = new Set([...r.out.matchAll(/check\.ts\((\d+),\d+\): error/g)].map((m) => Number(m[1]) - 1));
  assert.deepEqual(
    expected.filter((line) => !errorLines.has(line)),
    [],
    r.out,
  );
  assert.deepEqual(
    [...errorLines].filter((line) => !expected.includes(line)),
    [],
    `only the expected lines fail:\n${r.out}`,
  );
});

test(`${verifies('SPEC-9-sdk-versions')}the package is MIT licensed at 0.6.0, with 0.4.0, 0.5.0 and 0.6.0 in its changelog, and exports the client and the browser entry`, () => {
  const pkg = JSON.parse(readFileSync(join(sdk.packageDir, 'package.json'), 'utf8')) as {
    version: string;
    license: string;
    exports: Record<string, { types: string; default: string }>;
  };
  assert.deepEqual([pkg.version, pkg.license], ['0.6.0', 'MIT']);
  assert.match(readFileSync(join(SDK_SOURCE, 'LICENSE'), 'utf8'), /^MIT License/);
  const changelog = readFileSync(join(SDK_SOURCE, 'CHANGELOG.md'), 'utf8');
  assert.ok(
    changelog.indexOf('## 0.6.0') < changelog.indexOf('## 0.5.0') &&
      changelog.indexOf('## 0.5.0') < changelog.indexOf('## 0.4.0') &&
      changelog.includes('## 0.4.0'),
    'newest first',
  );
  for (const entry of ['.', './browser']) {
    for (const file of [pkg.exports[entry]!.types, pkg.exports[entry]!.default])
      assert.ok(readFileSync(join(sdk.packageDir, file), 'utf8').length > 0, file);
  }
  assert.doesNotMatch(
    readFileSync(sdk.browserBundle, 'utf8'),
    /\bimport\b[^(]*\bfrom\b/,
    'the browser bundle has no imports to resolve',
  );
});
