/**
 * Issue #33 (1, 2), kept true by reading src/: the reserve rule lives in one place (reservations.ts), no layer sets a
 * field of a call's idempotency key or shared call for another to read (the key, CallKey, owns its state), and the
 * retention of storage rows is not in the domain.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const SRC = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** Each line of `src` matching `re`, as `path:line: text`, for the files `keep` accepts (paths relative to src/). */
function findLines(src: string, re: RegExp, keep: (path: string) => boolean): string[] {
  return sources(src).flatMap((file) => {
    const path = relative(src, file).replaceAll('\\', '/');
    if (!keep(path)) return [];
    return readFileSync(file, 'utf8')
      .split('\n')
      .flatMap((text, i) => (re.test(text) ? [`${path}:${i + 1}: ${text.trim()}`] : []));
  });
}

/** The reserve's checks (their calls, its refusals) outside the one rule, and the quote, which checks too. */
export function reserveRuleOutsideItsPlace(src: string): string[] {
  const checks = /(?<!function )\b(?:checkRestrictions|checkTierOffered|checkTierStillOffered)\(/;
  const refusals = /new ToolError\('quote_(?:already_used|expired)'/;
  const allowed = new Set([
    'domain/purchase/reservations.ts',
    'domain/purchase/quotes.ts',
    'domain/catalog/catalog-changes.ts',
    // A multi-line quote's checks (the quote's, per line), and the reserve rule's part for its other lines, called
    // only from decideReserve in reservations.ts.
    'domain/purchase/lines-quote.ts',
    'domain/purchase/lines-reserve.ts',
  ]);
  return findLines(src, new RegExp(`${checks.source}|${refusals.source}`), (path) => !allowed.has(path));
}

/** Assignments to a field of a call's key or shared call (`x.idempotency.y =`, `shared.claimed =`) elsewhere. */
export function callKeyFieldsSetOutsideTheOwner(src: string): string[] {
  const re = /\b(?:idempotency|shared|sharedCommit)\??\.\w+\s*=(?![=>])/;
  return findLines(src, re, (path) => path !== 'storage/idempotency-store.ts');
}

/** Storage rows' retention in the domain: it names no table only storage keeps (keys, tasks, counters, OAuth). */
export function storageRetentionInDomain(src: string): string[] {
  const tables = 'idempotency_keys|a2a_tasks|oauth_records|rate_limits|RATE_LIMIT_TABLE|IDEMPOTENCY_TTL|A2A_TASK_TTL';
  const re = new RegExp(`\\b(?:${tables})`);
  return findLines(src, re, (path) => path.startsWith('domain/'));
}

test('the reserve rule is in one place: reservations.ts decides every reserve (batch, ACP, purchase_initiate)', () => {
  assert.deepEqual(reserveRuleOutsideItsPlace(SRC), []);
});

test('idempotency has one owner: no layer sets a field of a call key or shared call for another layer to read', () => {
  assert.deepEqual(callKeyFieldsSetOutsideTheOwner(SRC), []);
});

test('the retention of storage rows (idempotency keys, A2A tasks, counters, OAuth) is not in the domain', () => {
  assert.deepEqual(storageRetentionInDomain(SRC), []);
});

test('the three checkers fail when the rule is broken', (t) => {
  const root = mkdtempSync(join(tmpdir(), 'tessera-one-reserve-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const files: Record<string, string> = {
    'domain/purchase/reserve-checks.ts': "checkRestrictions(t, q, now);\nthrow new ToolError('quote_already_used');\n",
    'domain/purchase/reserve-batcher.ts': 'if (shared) shared.claimed = true;\ncall.ctx.idempotency.stored = true;\n',
    'orchestrator/invoke.ts': 'if (shared.replay === undefined) shared.finish = (raw) => raw;\n',
    'domain/purchase/retention.ts': "await db.execute('delete from idempotency_keys where created_at < ?');\n",
  };
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  assert.equal(reserveRuleOutsideItsPlace(root).length, 2);
  assert.equal(callKeyFieldsSetOutsideTheOwner(root).length, 3);
  assert.equal(storageRetentionInDomain(root).length, 1);
});
