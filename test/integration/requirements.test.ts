/** Every requirement of the specification and the contract has a test naming it with verifies(), or is a known gap. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { KNOWN_GAPS, REQUIREMENTS } from '../support/requirements.ts';

const TEST_ROOT = join(import.meta.dirname, '..');

/** The test files under test/, recursively. */
function testFiles(dir = TEST_ROOT): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return testFiles(path);
    // This file's own scanner test names ids in a sample, verifying none of them.
    return e.name.endsWith('.test.ts') && path !== import.meta.filename ? [path] : [];
  });
}

/** The ids each `verifies(...)` call names in `source` (calls may span lines; ids are string literals). */
export function idsVerifiedIn(source: string): string[] {
  const ids: string[] = [];
  for (const call of source.matchAll(/\bverifies\(([^)]*)\)/g)) {
    for (const id of call[1]!.matchAll(/['"`]((?:SPEC|CONTRACT)-[^'"`]+)['"`]/g)) ids.push(id[1]!);
  }
  return ids;
}

/** Requirement id → the test files that name it. */
function coverage(): Map<string, string[]> {
  const byId = new Map<string, string[]>();
  for (const file of testFiles()) {
    for (const id of new Set(idsVerifiedIn(readFileSync(file, 'utf8')))) {
      byId.set(id, [...(byId.get(id) ?? []), relative(TEST_ROOT, file)]);
    }
  }
  return byId;
}

test('every requirement id is verified by a test, or listed as a known gap with its reason', (t) => {
  const byId = coverage();
  const uncovered = REQUIREMENTS.filter((r) => !byId.has(r.id) && !(r.id in KNOWN_GAPS)).map(
    (r) => `${r.id} (${r.text})`,
  );
  assert.deepEqual(uncovered, [], 'requirements without a test: tag one with verifies(id) or list it in KNOWN_GAPS');
  for (const r of REQUIREMENTS) {
    t.diagnostic(`${r.id}: ${byId.get(r.id)?.join(', ') ?? `known gap: ${KNOWN_GAPS[r.id]}`}`);
  }
});

test('a known gap is a requirement without a test, and says why', () => {
  const byId = coverage();
  const ids = new Set(REQUIREMENTS.map((r) => r.id));
  for (const [id, reason] of Object.entries(KNOWN_GAPS)) {
    assert.ok(ids.has(id), `known gap ${id} is no requirement`);
    assert.ok(reason.length > 20, `known gap ${id} needs its reason`);
    assert.equal(
      byId.get(id),
      undefined,
      `${id} is a known gap but ${byId.get(id)?.join(', ')} verifies it: drop the gap`,
    );
  }
});

test('requirement ids are unique, well formed and only those listed are named in tests', () => {
  const ids = REQUIREMENTS.map((r) => r.id);
  assert.equal(new Set(ids).size, ids.length, 'duplicate requirement id');
  for (const r of REQUIREMENTS) {
    assert.match(r.id, /^(SPEC-\d+(\.\d+)?|CONTRACT)-[a-z0-9]+(-[a-z0-9]+)*$/, r.id);
    assert.ok(r.text.length > 10 && r.section.length > 0, r.id);
  }
  const unknown = [...coverage().keys()].filter((id) => !ids.includes(id));
  assert.deepEqual(unknown, [], 'tests name ids that are not in test/support/requirements.ts');
});

test('the scanner reads the ids of one and of several verifies() calls, across lines', () => {
  const source =
    "test(`${verifies('SPEC-9-v1-prefix')} a`);\ntest(verifies(\n  'SPEC-7-discovery-404',\n  \"CONTRACT-error-shape\",\n) + 'b');";
  assert.deepEqual(idsVerifiedIn(source), ['SPEC-9-v1-prefix', 'SPEC-7-discovery-404', 'CONTRACT-error-shape']);
});
