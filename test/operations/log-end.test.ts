/**
 * The last log lines of a stopping process come out whole and in order (`endLog`, src/log.ts): the stderr destination
 * writes asynchronously, and while a long line waits for a slow reader (a full pipe) the synchronous flush at exit used
 * to write the next line first and drop the rest of the long one. Here a child process logs a 1 MiB line and then a
 * short one into a pipe nobody reads yet, ends its log and exits; the parent then reads both lines, in order.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';

const LOG = join(import.meta.dirname, '..', '..', 'src', 'log.ts');

test('a long line still being written and the line after it are both written, in order, before the process exits', async () => {
  const script = `
    import { createLogger, endLog } from ${JSON.stringify(LOG)};
    const log = createLogger('info');
    log.info({ filler: 'x'.repeat(1 << 20) }, 'long');
    log.info('last');
    await endLog(log);
    process.stdout.write('ended');
    process.exit(0);
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const chunks: Buffer[] = [];
  const exited = new Promise<number | null>((done) => child.once('close', (code) => done(code)));
  // Nobody reads stderr at first: the pipe fills while the long line is being written.
  child.stderr.pause();
  await delay(300);
  const endedEarly = out;
  child.stderr.on('data', (d: Buffer) => chunks.push(d));
  child.stderr.resume();
  assert.equal(await exited, 0);
  assert.equal(endedEarly, '', 'the process waited for its log before it exited');
  const lines = Buffer.concat(chunks)
    .toString()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { msg: string; filler?: string });
  assert.deepEqual(
    lines.map((l) => l.msg),
    ['long', 'last'],
  );
  assert.equal(lines[0]!.filler!.length, 1 << 20);
  assert.equal(out, 'ended');
});
