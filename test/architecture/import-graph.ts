/**
 * The layer rule, as code: reads every `src/` file's imports and reports imports that run upward, folders
 * that import each other in a cycle, and transport or storage imports where they do not belong.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/** Layers from the bottom up; a file may import its own layer and the ones below it, never above. */
export const LAYERS: readonly (readonly string[])[] = [
  ['kernel'],
  ['storage'],
  ['payments', 'mandates', 'webhooks', 'mail', 'i18n', 'tickets', 'documents', 'cluster'],
  ['domain'],
  ['orchestrator'],
  ['tools'],
  ['http', 'rest', 'protocols', 'buyer-pages', 'console-pages'],
  ['(composition)'],
];

/** A database driver or query builder, its subpaths included: `pg`, `pg/lib/...`, `pg-*`, `kysely`, `@mikro-orm/*`. */
export const DRIVER = /^(pg|pg-[\w.-]+|kysely|@mikro-orm\/[\w.-]+)(\/|$)/;
const TRANSPORT = /^(koa|@koa\/|@modelcontextprotocol\/|@a2a-js\/)/;
const TRANSPORT_OR_DRIVER = new RegExp(`${TRANSPORT.source}|${DRIVER.source}`);

/** Packages a layer must not import (transports belong to the surfaces, drivers and the ORM to storage and domain). */
const FORBIDDEN_PACKAGES: Record<string, RegExp> = {
  kernel: TRANSPORT_OR_DRIVER,
  storage: TRANSPORT,
  integration: TRANSPORT,
  domain: TRANSPORT,
  orchestrator: TRANSPORT_OR_DRIVER,
  tools: TRANSPORT_OR_DRIVER,
};

/**
 * Files allowed to call `createRequire` (which loads modules outside the import graph this checker reads), each
 * with the reason. Anything else in `src/` that mentions it fails; an entry whose file no longer uses it fails too.
 */
export const CREATE_REQUIRE_ALLOWED: Readonly<Record<string, string>> = {
  'rest/docs-page.ts': "resolves swagger-ui-dist's folder on disk to serve its static files; it loads no code",
  'documents/apple-pass.ts':
    'loads passkit-generator (a third-party library, no module of ours) on the first pass instead of at start, ' +
    'keeping buildApplePass synchronous (docs/performance.md, "Start time")',
};

export interface ImportEdge {
  from: string;
  to: string;
  /** The specifier as written. */
  spec: string;
  typeOnly: boolean;
}

export interface Violation {
  file: string;
  message: string;
}

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? walk(p) : /\.tsx?$/.test(p) ? [p] : [];
  });
}

const IMPORT =
  /(?:^|\n)\s*(import|export)\s+(type\s+)?([^;]*?)\s+from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|(?:^|\n)\s*import\s+['"]([^'"]+)['"]/g;

/**
 * Every import in the `.ts` files under `srcDir`: relative ones resolved to paths relative to `srcDir`, packages as
 * written.
 */
export function readImports(srcDir: string): { files: string[]; edges: ImportEdge[]; packages: ImportEdge[] } {
  const root = resolve(srcDir);
  const files = walk(root).map((f) => relative(root, f).split(sep).join('/'));
  const edges: ImportEdge[] = [];
  const packages: ImportEdge[] = [];
  for (const file of files) {
    const text = readFileSync(join(root, file), 'utf8');
    for (const m of text.matchAll(IMPORT)) {
      const spec = (m[4] ?? m[5] ?? m[6])!;
      const typeOnly =
        Boolean(m[2]) ||
        (/^\{[^}]*\}$/.test(m[3] ?? '') &&
          (m[3] ?? '')
            .replace(/[{}\s]/g, '')
            .split(',')
            .filter(Boolean)
            .every((n) => n.startsWith('type ')));
      if (spec.startsWith('.')) {
        const to = relative(root, resolve(root, dirname(file), spec))
          .split(sep)
          .join('/');
        edges.push({ from: file, to, spec, typeOnly });
      } else if (!spec.startsWith('node:')) {
        packages.push({ from: file, to: spec, spec, typeOnly });
      }
    }
  }
  return { files, edges, packages };
}

/** The layer group of a file: its top folder, or `(composition)` for files directly in `src/`. */
export function groupOf(file: string): string {
  const parts = file.split('/');
  return parts.length === 1 ? '(composition)' : parts[0]!;
}

/** The node a file belongs to in the folder graph: `domain/<area>` and `protocols/<name>` are their own nodes. */
export function folderOf(file: string): string {
  const parts = file.split('/');
  if (parts.length === 1) return '(composition)';
  if ((parts[0] === 'domain' || parts[0] === 'protocols' || parts[0] === 'tools') && parts.length > 2)
    return `${parts[0]}/${parts[1]}`;
  return parts[0]!;
}

function rankOf(group: string): number {
  const i = LAYERS.findIndex((l) => l.includes(group));
  if (i < 0) throw new Error(`src/${group}/ is in no layer: add it to LAYERS in test/architecture/import-graph.ts`);
  return i;
}

function packageRuleOf(group: string): RegExp | undefined {
  if (LAYERS[2]!.includes(group)) return FORBIDDEN_PACKAGES.integration;
  return FORBIDDEN_PACKAGES[group];
}

/** Folder-level cycles, each as the list of folders around it. */
export function folderCycles(edges: ImportEdge[]): string[][] {
  return stronglyConnected(edges, folderOf);
}

/** The cycles (strongly connected components of more than one node) of the graph `edges` induce on `nodeOf`. */
function stronglyConnected(edges: ImportEdge[], nodeOf: (file: string) => string): string[][] {
  const graph = new Map<string, Set<string>>();
  for (const e of edges) {
    const a = nodeOf(e.from);
    const b = nodeOf(e.to);
    if (a === b) continue;
    if (!graph.has(a)) graph.set(a, new Set());
    graph.get(a)!.add(b);
  }
  // Tarjan's strongly connected components.
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const comp: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        comp.push(w);
      } while (w !== v);
      if (comp.length > 1) out.push(comp.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return out;
}

/**
 * Every broken rule in the tree under `srcDir`, each with the file and a sentence that says what to do.
 * `allowRequire` lists the files (relative to `srcDir`) that may use `createRequire`.
 */
export function checkLayers(
  srcDir: string,
  allowRequire: Readonly<Record<string, string>> = CREATE_REQUIRE_ALLOWED,
): Violation[] {
  const { files, edges, packages } = readImports(srcDir);
  const violations: Violation[] = [];
  for (const e of edges) {
    const from = groupOf(e.from);
    const to = groupOf(e.to);
    if (rankOf(to) > rankOf(from)) {
      violations.push({
        file: `src/${e.from}`,
        message: `src/${e.from} imports src/${e.to} ('${e.spec}'): ${from} is below ${to} and must never import upward.`,
      });
    }
  }
  for (const p of packages) {
    const rule = packageRuleOf(groupOf(p.from));
    if (rule?.test(p.to)) {
      violations.push({
        file: `src/${p.from}`,
        message:
          `src/${p.from} imports the package '${p.to}', which ${groupOf(p.from)}/ must not use ` +
          '(transports belong to the surfaces, drivers and SQL to storage and the domain).',
      });
    }
  }
  for (const file of files) {
    const uses = /\bcreateRequire\b/.test(readFileSync(join(resolve(srcDir), file), 'utf8'));
    if (uses && !(file in allowRequire)) {
      violations.push({
        file: `src/${file}`,
        message:
          `src/${file} uses createRequire, which loads modules around the import graph the layer rule reads: ` +
          'use import, or add the file to CREATE_REQUIRE_ALLOWED in test/architecture/import-graph.ts with the reason.',
      });
    }
  }
  for (const file of Object.keys(allowRequire)) {
    if (!files.includes(file) || !/\bcreateRequire\b/.test(readFileSync(join(resolve(srcDir), file), 'utf8'))) {
      violations.push({
        file: `src/${file}`,
        message: `src/${file} is in CREATE_REQUIRE_ALLOWED but no longer uses createRequire: remove the entry.`,
      });
    }
  }
  for (const e of edges) {
    if (groupOf(e.from) === 'tools' && groupOf(e.to) === 'storage') {
      violations.push({
        file: `src/${e.from}`,
        message: `src/${e.from} imports src/${e.to}: a tool handler calls domain functions, never storage directly.`,
      });
    }
  }
  for (const cycle of folderCycles(edges)) {
    violations.push({
      file: `src/${cycle[0]}`,
      message: `folders import each other in a cycle: ${cycle.join(' ⇄ ')}.`,
    });
  }
  for (const cycle of stronglyConnected(edges, (f) => f)) {
    violations.push({
      file: `src/${cycle[0]}`,
      message: `files import each other in a cycle: ${cycle.map((f) => `src/${f}`).join(' ⇄ ')}.`,
    });
  }
  return violations;
}
