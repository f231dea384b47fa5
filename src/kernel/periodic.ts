/**
 * A stoppable background loop whose steps never overlap: a step run by hand (tests call e.g.
 * `settleDue()` after moving the clock) waits for a running timer step and vice versa, so when the
 * call returns, all work due at that moment is done.
 */
import type { Logger } from 'pino';
import { describeError } from './errors.ts';

export class Periodic {
  private readonly name: string;
  private readonly log: Logger;
  private tail: Promise<unknown> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(name: string, log: Logger) {
    this.name = name;
    this.log = log;
  }

  /** Runs `fn` after every step queued before it. */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.tail.then(() => fn());
    this.tail = run.catch(() => undefined);
    return run;
  }

  /** Runs `step` every `intervalMs` (0 turns the loop off); a step that reports more work runs again at once. */
  start(intervalMs: number, step: () => Promise<boolean>): void {
    if (intervalMs <= 0 || this.timer || this.stopped) return;
    const tick = async (): Promise<void> => {
      let busy = false;
      try {
        busy = await this.exclusive(step);
      } catch (err) {
        this.log.error({ loop: this.name, err: describeError(err) }, 'background step failed');
      }
      if (!this.stopped) this.timer = setTimeout(() => void tick(), busy ? 0 : intervalMs).unref();
    };
    this.timer = setTimeout(() => void tick(), intervalMs).unref();
  }

  /** Stops the loop and waits for the running step. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.tail;
  }
}
