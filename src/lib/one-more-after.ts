/**
 * One at a time, one more after: runs tasks at most `limit` at once (one unless told). Asked to `run`
 * while that many are under way, the caller shares the run started last, and exactly one more run (the
 * task of the last one to ask) starts when one ends, however many asked meanwhile: work that arrived
 * during a run is picked up right after it, never by two runs at once. `join` shares without asking
 * for one more. `close` starts no run that was asked for before it, and waits for those under way;
 * asking to run again opens it again. A run's failure goes to whoever awaits it; a follow-up's, which
 * nobody awaits, to `onError`.
 */
export class OneMoreAfter<T> {
  private readonly limit: number;
  private readonly underWay = new Set<Promise<T>>();
  private last: Promise<T> | undefined;
  /** The task of the one more run asked for while `limit` were under way. */
  private next: (() => Promise<T>) | undefined;
  private shut = false;

  constructor(private readonly options: { limit?: number; onError: (error: unknown) => void }) {
    this.limit = options.limit ?? 1;
  }

  /** Whether a run is under way. */
  get busy(): boolean {
    return this.underWay.size > 0;
  }

  /** Closed, and not asked to run since. */
  get closed(): boolean {
    return this.shut;
  }

  /** Starts `task` now, or shares the run under way and has one more (`task`) follow it. */
  run(task: () => Promise<T>): Promise<T> {
    this.shut = false;
    if (this.underWay.size < this.limit) return this.start(task);
    this.next = task;
    return this.last!;
  }

  /** Starts `task` now, or shares the run under way. */
  join(task: () => Promise<T>): Promise<T> {
    this.shut = false;
    return this.underWay.size < this.limit ? this.start(task) : this.last!;
  }

  /** Resolves once no run is under way, follow-ups included (their failures are not its own). */
  async idle(): Promise<void> {
    while (this.underWay.size > 0) await Promise.allSettled([...this.underWay]);
  }

  /** No run follows those under way (until one is asked for again); resolves once they have ended. */
  close(): Promise<void> {
    this.shut = true;
    this.next = undefined;
    return this.idle();
  }

  private start(task: () => Promise<T>): Promise<T> {
    // Under way before the task starts: a task that asks for another run in its first, synchronous part
    // (more waits than one run takes) counts itself among the `limit`.
    let adopt!: (task: Promise<T>) => void;
    const run = new Promise<T>((resolve) => (adopt = resolve));
    this.underWay.add(run);
    this.last = run;
    // A task that throws before its first await fails its run, as one that rejects does.
    adopt(new Promise<T>((resolve) => resolve(task())));
    const ended = () => {
      this.underWay.delete(run);
      const next = this.next;
      if (next === undefined) return;
      this.next = undefined;
      this.start(next).catch(this.options.onError);
    };
    run.then(ended, ended);
    return run;
  }
}
