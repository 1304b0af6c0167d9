/**
 * Ordered shutdown for the launcher: things are stopped in the reverse order
 * they were started (applications before the databases they use). The first
 * SIGINT/SIGTERM starts it; a second one while stopping kills what is left.
 */
export class Lifecycle {
  private readonly stoppers: Array<{ name: string; stop: () => Promise<unknown> }> = [];
  private stopping: Promise<void> | undefined;

  constructor(private readonly log: (line: string) => void) {}

  get isStopping(): boolean {
    return this.stopping !== undefined;
  }

  /** Registers what to undo. Added after shutdown began, it is undone at once. */
  add(name: string, stop: () => Promise<unknown>): void {
    if (this.stopping) {
      void stop().catch((err: Error) => this.log(`stopping ${name}: ${err.message}`));
      return;
    }
    this.stoppers.push({ name, stop });
  }

  handleSignals(): void {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.on(signal, () => {
        if (this.stopping) {
          this.log(`${signal} again: exiting without waiting`);
          process.exit(1);
        }
        this.log(`${signal}: stopping (again to force)`);
        void this.stop(0);
      });
    }
  }

  /** Undoes everything registered, then exits with `exitCode`. */
  stop(exitCode: number): Promise<void> {
    this.stopping ??= (async () => {
      for (const { name, stop } of this.stoppers.reverse()) {
        await stop().catch((err: Error) => this.log(`stopping ${name}: ${err.message}`));
      }
      process.exit(exitCode);
    })();
    return this.stopping;
  }
}
