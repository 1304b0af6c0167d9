/**
 * A capacity (slots, bytes) handed out first come first served: a caller
 * that does not fit waits, and beyond `maxWaiting` waiting callers the next
 * is refused at once (GateFullError), for the service to answer 503 rather
 * than keep a client waiting past its own timeout. The gateway's upload
 * memory and the SVG tracer's slots are two such gates.
 */
export class AdmissionGate {
  private used = 0;
  private readonly queue: { units: number; grant(): void }[] = [];

  constructor(
    readonly capacity: number,
    readonly maxWaiting: number,
  ) {}

  /** Units held by callers admitted. */
  get inUse(): number {
    return this.used;
  }

  /** Callers waiting to be admitted. */
  get waiting(): number {
    return this.queue.length;
  }

  /**
   * Resolves with the function that gives the units back, once they are
   * granted (at most the whole capacity, so that any caller can run alone).
   * Rejects with GateFullError when `maxWaiting` callers wait already, and
   * with the signal's reason if it aborts first (the caller leaves the queue).
   */
  acquire(units: number, signal?: AbortSignal): Promise<() => void> {
    const wanted = Math.min(Math.max(0, units), this.capacity);
    signal?.throwIfAborted();
    // Strictly in order: a large caller is not overtaken for ever by small ones.
    if (this.queue.length === 0 && this.used + wanted <= this.capacity) {
      this.used += wanted;
      return Promise.resolve(this.releaser(wanted));
    }
    if (this.queue.length >= this.maxWaiting) return Promise.reject(new GateFullError(this.queue.length));
    return new Promise((resolve, reject) => {
      const entry = {
        units: wanted,
        grant: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve(this.releaser(wanted));
        },
      };
      const onAbort = () => {
        const at = this.queue.indexOf(entry);
        if (at >= 0) this.queue.splice(at, 1);
        reject(signal!.reason);
        // The one that left may have held back smaller ones behind it.
        this.grantWaiting();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.queue.push(entry);
    });
  }

  private releaser(units: number): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.used -= units;
      this.grantWaiting();
    };
  }

  private grantWaiting(): void {
    while (this.queue.length > 0 && this.used + this.queue[0]!.units <= this.capacity) {
      const next = this.queue.shift()!;
      this.used += next.units;
      next.grant();
    }
  }
}

/** The gate's queue is full: the caller should try again shortly. */
export class GateFullError extends Error {
  constructor(
    /** Callers waiting ahead when this one was refused. */
    readonly waitingAhead: number,
  ) {
    super('too many callers waiting');
  }
}
