/**
 * One Ctrl-C can reach the launcher more than once: the terminal signals the
 * whole foreground process group, and a parent may relay the same SIGINT (npm
 * through a shell that became the script, tsx's wrapper; docs/adr/0028). A
 * repeat within this interval of the first is that same Ctrl-C; only a later
 * one is a person asking to force.
 */
const FORCE_AFTER_MS = 2000;

/**
 * Ordered shutdown for the launcher: things are stopped in the reverse order
 * they were started (applications before the databases they use). The first
 * SIGINT/SIGTERM starts it; another one at least FORCE_AFTER_MS later, while
 * still stopping, exits without waiting.
 */
export class Lifecycle {
  private readonly stoppers: Array<{ name: string; stop: () => Promise<unknown> }> = [];
  private stopping: Promise<void> | undefined;
  private firstSignalAt: number | undefined;

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
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => this.onSignal(signal));
  }

  /** The first signal starts stopping; a copy of it is ignored; a later one forces. */
  private onSignal(signal: NodeJS.Signals): void {
    const now = Date.now();
    if (this.firstSignalAt === undefined) {
      this.firstSignalAt = now;
      this.log(`${signal}: stopping (Ctrl-C again to force)`);
      void this.stop(0);
      return;
    }
    if (now - this.firstSignalAt < FORCE_AFTER_MS) return;
    this.log(`${signal} again: exiting without waiting`);
    process.exit(1);
  }

  /** Undoes everything registered, then exits with `exitCode`. */
  stop(exitCode: number): Promise<void> {
    this.stopping ??= (async () => {
      for (const { name, stop } of this.stoppers.reverse()) {
        await stop().catch((err: Error) => this.log(`stopping ${name}: ${err.message}`));
        this.log(`stopped ${name}`);
      }
      process.exit(exitCode);
    })();
    return this.stopping;
  }
}
