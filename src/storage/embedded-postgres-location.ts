/**
 * Where an embedded cluster lives (src/storage/embedded-postgres.ts): in its data directory, or, when we are root and
 * the unprivileged postgres user cannot reach that, in a directory of its own under the system directory.
 */
import { createHash } from 'node:crypto';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { EmbeddedPostgresError, REMEDY, blockedBy, openDir } from './embedded-postgres-binaries.ts';
import { inspectExistingServer } from './embedded-postgres-process.ts';

/**
 * Where the cluster of `dataDir` lives. Normally `dataDir/pg`. As root, when the postgres user cannot reach
 * that, a directory keyed by the data directory's path under `systemDir`, named in `dataDir/pg-location.txt`.
 * A cluster there whose data directory has no credentials any more belonged to one removed at the same path:
 * nobody can log in to it, so it is removed.
 */
export async function clusterDirFor(
  dataDir: string,
  asRoot: boolean,
  systemDir: string,
  hadCredentials: boolean,
  notices: string[],
): Promise<string> {
  const local = join(dataDir, 'pg');
  if (!asRoot) return local;
  const relocated = join(systemDir, 'clusters', createHash('sha256').update(dataDir).digest('hex').slice(0, 16), 'pg');
  if (!hadCredentials && existsSync(join(relocated, 'PG_VERSION'))) {
    if ((await inspectExistingServer(relocated)) !== undefined) {
      throw new EmbeddedPostgresError(
        `A Tessera process still runs the PostgreSQL in ${relocated} for an earlier ${dataDir}: stop it, or set TESSERA_DATA_DIR to another directory.`,
      );
    }
    rmSync(dirname(relocated), { recursive: true, force: true });
    notices.push(`Removed ${relocated}: it belonged to an earlier ${dataDir}, whose credentials are gone.`);
  }
  const blocked = blockedBy(local);
  if (existsSync(join(local, 'PG_VERSION'))) {
    if (!blocked) return local;
    throw new EmbeddedPostgresError(
      `The embedded PostgreSQL runs as the unprivileged user "postgres" (we are root), and it cannot reach ${local} because ` +
        `${blocked} is not searchable by other users: make it so (chmod o+x ${blocked}), set TESSERA_DATA_DIR to a directory it can reach, ${REMEDY}.`,
    );
  }
  if (!blocked && !existsSync(join(relocated, 'PG_VERSION'))) return local;
  openDir(dirname(relocated));
  const stillBlocked = blockedBy(relocated);
  if (stillBlocked) {
    throw new EmbeddedPostgresError(
      `The embedded PostgreSQL runs as the unprivileged user "postgres" (we are root), and it can reach neither ${local} nor ${relocated} ` +
        `(${blocked ?? stillBlocked} is not searchable by other users): set TESSERA_DATA_DIR to a directory it can reach, ${REMEDY}.`,
    );
  }
  const note = join(dataDir, 'pg-location.txt');
  if (!existsSync(note)) {
    writeFileSync(
      note,
      `The embedded PostgreSQL cluster of this data directory is ${relocated}: the user "postgres" it runs as cannot reach ${local}.\n`,
    );
  }
  notices.push(
    `The embedded PostgreSQL cluster of ${dataDir} is ${relocated}, because the user "postgres" cannot reach ${local} (see ${note}).`,
  );
  return relocated;
}
