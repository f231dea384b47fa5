/**
 * Builds the console's browser application (src/console-pages/app, Preact + TSX) with tsdown into a directory named
 * after the content hash of its sources, under node_modules/.cache (never committed). A build whose hash is already
 * there is reused, so a warm start only reads and hashes the sources (a few milliseconds).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';

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

function files(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((f) => {
      const p = join(dir, f);
      return statSync(p).isDirectory() ? files(p) : [p];
    });
}

/** The hash of everything the bundle is made from: the app, the SDK's sources, the locked versions, this file. */
export function consoleSourceHash(): string {
  const hash = createHash('sha256');
  for (const file of [...files(APP_DIR), ...files(SDK_SRC), join(ROOT, 'package-lock.json'), import.meta.filename]) {
    hash.update(file.slice(ROOT.length));
    hash.update(readFileSync(file));
  }
  return hash.digest('hex').slice(0, 16);
}

/**
 * The bundle for the current sources, built first when missing. Safe when several processes start at once: each
 * builds into a directory of its own and renames it into place; the first rename wins.
 */
export async function ensureConsoleBuilt(): Promise<ConsoleBundle> {
  const hash = consoleSourceHash();
  const dir = join(CACHE_DIR, hash);
  if (existsSync(join(dir, 'console.js'))) return { dir, hash, script: 'console.js' };
  const tmp = join(CACHE_DIR, `.build-${hash}-${process.pid}-${Date.now()}`);
  mkdirSync(tmp, { recursive: true });
  try {
    // tsdown is a build tool (a devDependency): loaded only when a build is needed.
    const { build } = await import('tsdown');
    await build({
      config: false,
      cwd: ROOT,
      entry: { console: join(APP_DIR, 'main.tsx') },
      outDir: tmp,
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
    if (!existsSync(join(dir, 'console.js'))) {
      try {
        renameSync(tmp, dir);
      } catch (err) {
        // Another process renamed its build into place first: same sources, same bundle.
        if (!existsSync(join(dir, 'console.js'))) throw err;
      }
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  // Older builds go (a server already running read its bundle into memory at start); builds in progress stay.
  for (const old of readdirSync(CACHE_DIR))
    if (old !== hash && !old.startsWith('.build-')) rmSync(join(CACHE_DIR, old), { recursive: true, force: true });
  return { dir, hash, script: 'console.js' };
}
