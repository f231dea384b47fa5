/**
 * Build outputs cached by the content hash of their sources, under node_modules/.cache (never committed): the console's
 * browser application (src/console-pages/build.ts) and the server bundle `npm start` runs (src/server-bundle.ts). A
 * build whose hash is there is reused; a missing one is built into a directory of its own and renamed into place.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Every file below `dir`, in a stable order. */
export function filesUnder(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((f) => {
      const p = join(dir, f);
      return statSync(p).isDirectory() ? filesUnder(p) : [p];
    });
}

/** 16 hex digits of SHA-256 over `salt` and each file's path below `root` and its content. */
export function contentHash(root: string, files: readonly string[], salt = ''): string {
  const hash = createHash('sha256');
  hash.update(salt);
  for (const file of files) {
    hash.update(file.slice(root.length));
    hash.update(readFileSync(file));
  }
  return hash.digest('hex').slice(0, 16);
}

/**
 * The directory `cacheDir/hash`, built by `build(outDir)` first unless it already holds `marker`. Safe when several
 * processes build at once: each builds into a directory of its own and renames it into place; the first rename wins
 * (same sources, same output). Older builds are removed afterwards (a running process read its own at start); builds
 * in progress stay.
 */
export async function cachedBuild(
  cacheDir: string,
  hash: string,
  marker: string,
  build: (outDir: string) => Promise<void>,
): Promise<string> {
  const dir = join(cacheDir, hash);
  if (existsSync(join(dir, marker))) return dir;
  const tmp = join(cacheDir, `.build-${hash}-${process.pid}-${Date.now()}`);
  mkdirSync(tmp, { recursive: true });
  try {
    await build(tmp);
    if (!existsSync(join(dir, marker))) {
      try {
        renameSync(tmp, dir);
      } catch (err) {
        if (!existsSync(join(dir, marker))) throw err; // another process renamed the same build into place first
      }
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  for (const old of readdirSync(cacheDir))
    if (old !== hash && !old.startsWith('.build-')) rmSync(join(cacheDir, old), { recursive: true, force: true });
  return dir;
}
