// Waits that end when the node's signal aborts: the SDK's own sleeps and
// storage uploads take none.

/** Rejects with the signal's reason once it aborts, whatever `promise` does. */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err as Error);
      },
    );
  });
}

/** `ms` milliseconds, or until the signal aborts (rejecting with its reason). */
export function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  const timer = new Promise<void>((resolve) => setTimeout(resolve, ms).unref());
  return signal ? abortable(timer, signal) : timer;
}
