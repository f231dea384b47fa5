/**
 * The queue that groups concurrent calls (confirm and first-step groups, quote inserts and offer reads, sandbox
 * charges): calls arriving while a group runs join the next one, up to `max` calls, at most `inFlight` groups at once.
 * No timers: a group starts at the end of the event loop's turn its first call arrived in, or as soon as a slot is
 * free, so a quiet process runs groups of one. What a group does is the subclass's `run`.
 */
export abstract class CallGroups<M, R> {
  private readonly queue: (M & { resolve: (r: R) => void; reject: (err: unknown) => void })[] = [];
  private running = 0;
  private readonly counters = { groups: 0, calls: 0, largest: 0 };

  private readonly max: number;
  private readonly slots: number;

  /** `max` calls in a group at most, `slots` groups running at once. */
  constructor(max: number, slots: number) {
    this.max = max;
    this.slots = slots;
  }

  /** Counters for the bench and tests: groups run, calls in them, the largest group. */
  get stats(): { groups: number; calls: number; largest: number } {
    return { ...this.counters };
  }

  /** Calls waiting for a group. */
  get queued(): number {
    return this.queue.length;
  }

  /** Groups running now. */
  get inFlight(): number {
    return this.running;
  }

  /** Queues `member` for the next group; resolves or rejects with what its group answers for it. */
  protected enqueue(member: M): Promise<R> {
    return new Promise((resolve, reject) => {
      this.queue.push({ ...member, resolve, reject });
      // An idle queue starts its group at the end of this turn of the event loop, so the calls of one burst go in one
      // group: the members of a group that has just answered, which reach the next step together, or the requests
      // read in one poll. Otherwise the first of them would run alone and the rest after it.
      if (this.queue.length === 1 && this.running < this.slots) setImmediate(() => this.pump());
    });
  }

  /**
   * Answers each call of `group` with `one(call)` on its own: a group of one, or a group whose shared statement failed
   * (one call's failure is then its own, not the group's).
   */
  protected async eachAlone(
    group: (M & { resolve: (r: R) => void; reject: (err: unknown) => void })[],
    one: (member: M) => Promise<R>,
  ): Promise<void> {
    await Promise.all(group.map((m) => one(m).then(m.resolve, m.reject)));
  }

  /** Runs one group; answers each of its calls (`resolve`/`reject`) before it resolves. */
  protected abstract run(group: (M & { resolve: (r: R) => void; reject: (err: unknown) => void })[]): Promise<void>;

  private pump(): void {
    while (this.running < this.slots && this.queue.length) {
      const group = this.queue.splice(0, this.max);
      this.running++;
      this.counters.groups++;
      this.counters.calls += group.length;
      this.counters.largest = Math.max(this.counters.largest, group.length);
      void this.run(group).finally(() => {
        this.running--;
        this.pump();
      });
    }
  }
}
