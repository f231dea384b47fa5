/**
 * Finds the headless Chromium the browser tests drive: CHROMIUM_PATH, else the system's, else one unpacked from the npm
 * package @sparticuz/chromium.
 */
import { randomBytes } from 'node:crypto';
import {
  createReadStream,
  createWriteStream,
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pipeline } from 'node:stream/promises';
import { createBrotliDecompress } from 'node:zlib';

const SYSTEM_CHROMIUM = '/usr/bin/chromium';

/** How to get a browser when none starts; the browser tests fail with it. */
export const GET_CHROMIUM =
  'run npm install (it brings the @sparticuz/chromium package), or set CHROMIUM_PATH to a Chromium or Chrome executable';

/** The package's root, or undefined when it is not installed. */
function packageRoot(): string | undefined {
  try {
    return dirname(dirname(fileURLToPath(import.meta.resolve('@sparticuz/chromium'))));
  } catch {
    return undefined;
  }
}

/**
 * A cache directory only we can write to (the temp dir is shared with other users, who must not plant a binary we would
 * run).
 */
function cacheDir(version: string): string {
  const uid = process.getuid?.() ?? 0;
  const dir = join(tmpdir(), `tessera-chromium-${version}-${uid}`);
  mkdirSync(dir, { recursive: true, mode: 0o755 });
  const st = statSync(dir);
  if (st.uid === uid && (st.mode & 0o022) === 0) return dir;
  return mkdtempSync(join(tmpdir(), `tessera-chromium-${version}-`));
}

/**
 * Unpacks the package's brotli-compressed headless shell once per version (not its executablePath(), which
 * always writes /tmp/chromium and races when two suites run at once): to a unique temp file, then renamed into place.
 */
async function unpack(root: string): Promise<string> {
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
  const target = join(cacheDir(version), 'chromium');
  if (existsSync(target)) return target;
  const partial = `${target}.${process.pid}-${randomBytes(4).toString('hex')}.partial`;
  try {
    await pipeline(
      createReadStream(join(root, 'bin', 'chromium.br')),
      createBrotliDecompress(),
      createWriteStream(partial, { mode: 0o755 }),
    );
    chmodSync(partial, 0o755);
    renameSync(partial, target);
  } finally {
    rmSync(partial, { force: true });
  }
  return target;
}

/**
 * The executable the browser tests launch: CHROMIUM_PATH, then /usr/bin/chromium, then the npm package's.
 * Returns '' when there is none; launching then fails with GET_CHROMIUM.
 */
export async function resolveChromium(): Promise<string> {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  if (existsSync(SYSTEM_CHROMIUM)) return SYSTEM_CHROMIUM;
  const root = packageRoot();
  if (!root) return '';
  try {
    return await unpack(root);
  } catch (err) {
    process.stderr.write(`Could not unpack Chromium from @sparticuz/chromium (${(err as Error).message}).\n`);
    return '';
  }
}
