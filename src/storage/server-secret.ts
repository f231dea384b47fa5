/**
 * Where the server secret comes from, and the database's part in it. TESSERA_SECRET when set; otherwise a key file
 * outside the database (default `<TESSERA_DATA_DIR>/server-secret`, mode 0600), created once; every process on the
 * machine reads the same file. The database keeps only the secret's fingerprint (`settings.secret_fingerprint`), so a
 * dump of it yields no signing or sealing key, and a server started with another secret refuses to start instead of
 * failing to open what was sealed. A clear secret an earlier version kept in `settings` is moved to the key file.
 */
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { dirname } from 'node:path';
import { newServerSecret, secretFingerprint, ServerSecretError } from '../kernel/server-secret.ts';
import type { Database } from './database.ts';

/**
 * Settings rows earlier versions kept in clear: the generated server secret, and the sandbox provider's webhook secret
 * (now derived).
 */
const LEGACY_SECRET = 'session_secret';
const LEGACY_SANDBOX_SECRET = 'sandbox_webhook_secret';
const FINGERPRINT = 'secret_fingerprint';

export interface ServerSecret {
  secret: string;
  /**
   * What a person should know (a key file created, a secret moved out of the database, loose permissions): log at info
   * or warn.
   */
  notices: string[];
}

async function setting(db: Database, key: string): Promise<string | undefined> {
  const [row] = await db.execute<{ value: string }>('select value from settings where key = ?', [key]);
  return row?.value;
}

/**
 * Reads the key file, or creates it with `initial`. The secret is written to a private temporary file first and then
 * linked into place (`link` fails if the name exists), so the key file never exists half-written: of two processes
 * starting at once, one links its file, the other finds the name taken and reads the winner's secret.
 */
function keyFile(path: string, initial: () => string, notices: string[]): string {
  const fail = (what: string, err: unknown) =>
    new ServerSecretError(
      `The server key file ${path} cannot be ${what} (${(err as NodeJS.ErrnoException).code ?? 'error'}): set TESSERA_SECRET_FILE to a writable path, or TESSERA_SECRET.`,
    );
  if (!existsSync(path)) {
    const temporary = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      const fd = openSync(temporary, 'wx', 0o600);
      try {
        writeSync(fd, `${initial()}\n`);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      linkSync(temporary, path);
      notices.push(
        `Created the server key file ${path} (mode 0600): keep it with the database's backups, apart from them.`,
      );
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw fail('created', err);
    } finally {
      rmSync(temporary, { force: true });
    }
  }
  let text: string;
  try {
    text = readFileSync(path, 'utf8').trim();
  } catch (err) {
    throw new ServerSecretError(
      `The server key file ${path} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'}).`,
    );
  }
  if (text.length < 32)
    throw new ServerSecretError(
      `The server key file ${path} holds no secret (at least 32 characters): restore it, or set TESSERA_SECRET.`,
    );
  if (process.platform !== 'win32' && (statSync(path).mode & 0o077) !== 0)
    notices.push(`The server key file ${path} is readable by other users: chmod 600 it.`);
  return text;
}

/**
 * The server secret (`configured` = TESSERA_SECRET, else the key file at `keyFilePath`), checked against the database's
 * fingerprint (recorded on first use). Moves a clear secret left in `settings` by an earlier version to the key file
 * (when none exists yet) and deletes it and the clear sandbox webhook secret from the database. Throws
 * ServerSecretError, naming where the secret came from, when it is not the one the database was used with.
 */
export async function openServerSecret(
  db: Database,
  opts: { configured: string | undefined; keyFilePath: string },
): Promise<ServerSecret> {
  const notices: string[] = [];
  const legacy = await setting(db, LEGACY_SECRET);
  const secret = opts.configured ?? keyFile(opts.keyFilePath, () => legacy ?? newServerSecret(), notices);
  const source = opts.configured ? 'TESSERA_SECRET' : `the key file ${opts.keyFilePath}`;
  const mine = secretFingerprint(secret);
  if (legacy !== undefined && legacy !== secret) {
    throw new ServerSecretError(
      `The server secret (${source}) is not the one this database was used with: an earlier start generated one and kept it in the database. ` +
        (opts.configured
          ? 'Start once without TESSERA_SECRET to move it to the key file, then use that value, or unset TESSERA_SECRET.'
          : `Remove or restore ${opts.keyFilePath}: a start without it moves the database's secret there.`),
    );
  }
  await db.execute('insert into settings (key, value) values (?, ?) on conflict (key) do nothing', [FINGERPRINT, mine]);
  if ((await setting(db, FINGERPRINT)) !== mine) {
    throw new ServerSecretError(
      `The server secret (${source}) is not the one this database was used with, so its sessions and sealed secrets would not open: ` +
        'start with the same TESSERA_SECRET or key file (TESSERA_SECRET_FILE) as the servers before.',
    );
  }
  if (legacy !== undefined) notices.push(`Moved the generated server secret out of the database into ${source}.`);
  await db.execute('delete from settings where key in (?, ?)', [LEGACY_SECRET, LEGACY_SANDBOX_SECRET]);
  return { secret, notices };
}
