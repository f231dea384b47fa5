/**
 * Builds the console's browser application (src/console-pages/app, Preact + TSX) with tsdown into a directory named
 * after the content hash of its sources, under node_modules/.cache (never committed). A build whose hash is already
 * there is reused, so a warm start only reads and hashes the sources (a few milliseconds).
 */
import { join } from 'node:path';
import { cachedBuild, contentHash, filesUnder } from '../kernel/build-cache.ts';

const ROOT = join(import.meta.dirname, '..', '..');
/** The browser application's sources. */
export const APP_DIR = join(import.meta.dirname, 'app');
const SDK_SRC = join(ROOT, 'sdk', 'src');
const CACHE_DIR = join(ROOT, 'node_modules', '.cache', 'tessera-console');

/** A finished build: the directory holding `console.js`, and the hash it is named after. */
export interface ConsoleBundle {
  dir: string;
  hash: string;
  /** The bundle's file name in `dir`. */
  script: 'console.js';
}

/** The hash of everything the bundle is made from: the app, the SDK's sources, the locked versions, this file. */
export function consoleSourceHash(): string {
  const sources = [
    ...filesUnder(APP_DIR),
    ...filesUnder(SDK_SRC),
    join(ROOT, 'package-lock.json'),
    import.meta.filename,
  ];
  return contentHash(ROOT, sources);
}

/**
 * The bundle for the current sources, built first when missing. Safe when several processes start at once: each
 * builds into a directory of its own and renames it into place; the first rename wins.
 */
export async function ensureConsoleBuilt(): Promise<ConsoleBundle> {
  const hash = consoleSourceHash();
  const dir = await cachedBuild(CACHE_DIR, hash, 'console.js', async (outDir) => {
    // tsdown is a build tool (a devDependency): loaded only when a build is needed.
    const { build } = await import('tsdown');
    await build({
      config: false,
      cwd: ROOT,
      entry: { console: join(APP_DIR, 'main.tsx') },
      outDir,
      tsconfig: join(ROOT, 'tsconfig.json'),
      format: 'esm',
      platform: 'browser',
      target: 'es2022',
      fixedExtension: false,
      outExtensions: () => ({ js: '.js' }),
      hash: false,
      dts: false,
      clean: false,
      sourcemap: false,
      minify: true,
      alias: { '@tessera/sdk': join(SDK_SRC, 'index.ts') },
      deps: { alwaysBundle: [/.*/], onlyBundle: false },
      logLevel: 'warn',
    });
  });
  return { dir, hash, script: 'console.js' };
}
