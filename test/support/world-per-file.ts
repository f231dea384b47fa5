/** One world (server and mailbox) for a whole test file, started before its first test and closed after its last. */
import { after, before } from 'node:test';
import { startWorld, type World } from './buyers.ts';

/**
 * Registers the file's `before`/`after` hooks and returns a world that reads through to the one they start: use it
 * from the tests (it is not started yet while the file loads).
 */
export function worldPerFile(env: Record<string, string> = {}): World {
  let world: World | undefined;
  before(async () => {
    world = await startWorld(env);
  });
  after(async () => {
    await world?.close();
  });
  const started = (): World => {
    if (!world) throw new Error('the world starts in the file’s before hook; use it from a test');
    return world;
  };
  return {
    get h() {
      return started().h;
    },
    get box() {
      return started().box;
    },
    close: async () => world?.close(),
  };
}
