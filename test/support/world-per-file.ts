/** One world (server and mailbox) for a whole test file, started before its first test and closed after its last. */
import { after, before } from 'node:test';
import { startWorld, type World } from './buyers.ts';

/** What a file's hooks started: `get()` from a test (throws while not started), `peek()` where it may not be. */
export interface PerFile<T> {
  get(): T;
  peek(): T | undefined;
}

/** Registers the file's `before` (runs `start`) and `after` (closes what it started) hooks. */
export function perFile<T extends { close(): Promise<void> }>(start: () => Promise<T>): PerFile<T> {
  let value: T | undefined;
  before(async () => {
    value = await start();
  });
  after(async () => {
    await value?.close();
  });
  return {
    get() {
      if (!value) throw new Error('it starts in the file’s before hook; use it from a test');
      return value;
    },
    peek: () => value,
  };
}

/**
 * Registers the file's `before`/`after` hooks and returns a world that reads through to the one they start: use it
 * from the tests (it is not started yet while the file loads).
 */
export function worldPerFile(env: Record<string, string> = {}): World {
  const w = perFile(() => startWorld(env));
  return {
    get h() {
      return w.get().h;
    },
    get box() {
      return w.get().box;
    },
    close: async () => w.peek()?.close(),
  };
}
