/** One server for a whole test file, background loops off, started before its first test and closed after its last. */
import { startHarness, type Harness } from './harness.ts';
import { perFile } from './world-per-file.ts';

/**
 * Registers the file's `before`/`after` hooks for a harness with the sweeper, sandbox and webhook loops off (tests drive
 * them) and the rate limit out of the way, plus `env`; returns a harness that reads through to the started one (use it
 * from the tests).
 */
export function harnessPerFile(env: Record<string, string> = {}): Harness {
  const started = perFile(() =>
    startHarness({
      SWEEP_INTERVAL_MS: '0',
      SANDBOX_DISPATCH_MS: '0',
      WEBHOOK_DISPATCH_MS: '0',
      RATE_LIMIT_PER_MINUTE: '100000',
      ...env,
    }),
  );
  const h = (): Harness => started.get();
  return {
    get app() {
      return h().app;
    },
    get db() {
      return h().db;
    },
    get dbUrl() {
      return h().dbUrl;
    },
    get url() {
      return h().url;
    },
    get clock() {
      return h().clock;
    },
    merchant: (...args) => h().merchant(...args),
    staffToken: () => h().staffToken(),
    inFlight: () => h().inFlight(),
    close: async () => started.peek()?.close(),
  };
}
