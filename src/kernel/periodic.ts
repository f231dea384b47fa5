/**
 * A stoppable background loop whose steps never overlap: a step run by hand (tests call e.g.
 * `settleDue()` after moving the clock) waits for a running timer step and vice versa, so when the
 * call returns, all work due at that moment is done. `kick()` runs a step soon, in the background, when
 * a request has just committed work for it (the order e-mails): the request never runs the step itself.
 */
import type { Logger } from 'pino';
import { describeError } from './errors.ts';

export class Periodic {
  private readonly name: string;
  private readonly log: Logger;
  private tail: Promise<unknown> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private step: (() => Promise<boolean>) | undefined;
  private kicked = false;

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

  /**
   * Runs a step in the background after the queued ones, without waiting for it; kicks made before it starts count
   * as one. Does nothing before `start` (whatever its interval: kicks work with the timer off) or after `stop`.
   */
  kick(): void {
    const step = this.step;
    if (!step || this.stopped || this.kicked) return;
    this.kicked = true;
    this.exclusive(() => {
      this.kicked = false;
      return step();
    }).then(
      (busy) => busy && this.kick(),
      (err: unknown) => this.log.error({ loop: this.name, err: describeError(err) }, 'background step failed'),
    );
  }

  /** Resolves once every step queued so far (timed, kicked or run by hand) has finished. */
  idle(): Promise<void> {
    return this.exclusive(() => Promise.resolve());
  }

  /**
   * Runs `step` every `intervalMs` (0 turns the timer off; `kick()` still runs it); a step that reports more work
   * runs again at once.
   */
  start(intervalMs: number, step: () => Promise<boolean>): void {
    if (this.stopped) return;
    this.step ??= step;
    if (intervalMs <= 0 || this.timer) return;
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
