/**
 * Uploads that may wait for memory on one instance: a large upload holds its
 * reservation for seconds, so a longer queue would only keep clients waiting
 * past their timeouts; beyond it they get 503 with Retry-After.
 */
export const UPLOADS_WAITING_MAX = 64;

/**
 * The bytes this process's uploads may hold in memory at once. Each upload is
 * streamed, but a multipart upload to S3 keeps its parts in memory while they
 * are sent (about 27 MiB per upload at the defaults), so 32 concurrent large
 * uploads took a gateway from 228 to 1089 MiB: past its pod's 512 MiB, where
 * the kernel ends every request the process holds. An upload reserves what it
 * can hold (its declared length, or the most any upload holds) before its body
 * is read; one that does not fit waits, first come first served, with its
 * body left in the socket (the client's sending pauses). Beyond `maxWaiting`
 * waiting uploads the next is refused, for the caller to retry.
 */
export class UploadMemory {
  private used = 0;
  private readonly waiting: { bytes: number; grant(): void }[] = [];

  constructor(
    readonly totalBytes: number,
    readonly maxWaiting: number,
  ) {}

  /** Bytes reserved by uploads under way. */
  get reserved(): number {
    return this.used;
  }

  /** Uploads waiting for their reservation. */
  get queued(): number {
    return this.waiting.length;
  }

  /**
   * Resolves with the function that gives the bytes back, once they are
   * reserved (at most the whole budget, so that any upload can run alone).
   * Rejects with UploadsBusyError when too many wait already, and with the
   * signal's reason if it aborts first.
   */
  reserve(bytes: number, signal?: AbortSignal): Promise<() => void> {
    const wanted = Math.min(Math.max(0, bytes), this.totalBytes);
    signal?.throwIfAborted();
    // Strictly in order: a large upload is not overtaken for ever by small ones.
    if (this.waiting.length === 0 && this.used + wanted <= this.totalBytes) {
      this.used += wanted;
      return Promise.resolve(this.releaser(wanted));
    }
    if (this.waiting.length >= this.maxWaiting) return Promise.reject(new UploadsBusyError());
    return new Promise((resolve, reject) => {
      const entry = {
        bytes: wanted,
        grant: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve(this.releaser(wanted));
        },
      };
      const onAbort = () => {
        const at = this.waiting.indexOf(entry);
        if (at >= 0) this.waiting.splice(at, 1);
        reject(signal!.reason);
        // The one that left may have held back smaller ones behind it.
        this.grantWaiting();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(entry);
    });
  }

  private releaser(bytes: number): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.used -= bytes;
      this.grantWaiting();
    };
  }

  private grantWaiting(): void {
    while (this.waiting.length > 0 && this.used + this.waiting[0]!.bytes <= this.totalBytes) {
      const next = this.waiting.shift()!;
      this.used += next.bytes;
      next.grant();
    }
  }
}

/** Too many uploads wait for memory on this instance already. */
export class UploadsBusyError extends Error {
  constructor() {
    super('too many uploads in progress');
  }
}
