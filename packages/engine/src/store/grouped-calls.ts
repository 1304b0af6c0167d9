interface Waiting<In, Out> {
  input: In;
  resolve(output: Out): void;
  reject(err: unknown): void;
}

export interface GroupedCallsOptions<In, Out> {
  /** Serves a group: one output per input, in order. */
  call(inputs: In[]): Promise<Out[]>;
  /** Most inputs in one call. */
  max: number;
  /** Inputs with the same key never share a call: the later one waits for the next. */
  key?: (input: In) => string;
  /**
   * Whether the inputs of a group that failed with `err` may fare better in
   * smaller groups (default: yes). No for a failure none of them can escape,
   * such as the database being unreachable: then they all get it at once.
   */
  retryApart?: (err: unknown) => boolean;
}

/**
 * Group commit for one process's statements of a kind (reads of runs, node
 * commits): the calls that arrive while the previous one is in flight wait
 * for it, then go together in one call; a call that finds none in flight goes
 * at once, so a quiet process waits for nothing. A busy one sends one
 * statement per group instead of one per call, which is what PostgreSQL and
 * the process spend most of their time on (parse, plan, executor start and a
 * commit per statement). When a group's call fails, its halves are called in
 * turn, and so on down to single inputs, so that each gets its own result or
 * its own error: one input that makes every call holding it fail costs about
 * two calls per halving (13 for a group of 64) rather than one per input.
 */
export class GroupedCalls<In, Out> {
  private queue: Waiting<In, Out>[] = [];
  private inFlight = false;

  constructor(private readonly options: GroupedCallsOptions<In, Out>) {}

  submit(input: In): Promise<Out> {
    return new Promise<Out>((resolve, reject) => {
      this.queue.push({ input, resolve, reject });
      if (!this.inFlight) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.inFlight = true;
    try {
      while (this.queue.length > 0) await this.send(this.take());
    } finally {
      this.inFlight = false;
    }
  }

  /** The next group: up to `max` inputs in arrival order, skipping keys already in it. */
  private take(): Waiting<In, Out>[] {
    const { key, max } = this.options;
    if (!key) return this.queue.splice(0, max);
    const group: Waiting<In, Out>[] = [];
    const rest: Waiting<In, Out>[] = [];
    const keys = new Set<string>();
    for (const waiting of this.queue) {
      const k = key(waiting.input);
      if (group.length < max && !keys.has(k)) {
        keys.add(k);
        group.push(waiting);
      } else rest.push(waiting);
    }
    this.queue = rest;
    return group;
  }

  private async send(group: Waiting<In, Out>[]): Promise<void> {
    try {
      const outputs = await this.options.call(group.map((w) => w.input));
      group.forEach((w, i) => w.resolve(outputs[i]!));
    } catch (err) {
      if (group.length === 1 || this.options.retryApart?.(err) === false) {
        for (const w of group) w.reject(err);
        return;
      }
      const half = Math.ceil(group.length / 2);
      await this.send(group.slice(0, half));
      await this.send(group.slice(half));
    }
  }
}
