/**
 * An infrastructure failure (storage or database unreachable) met while
 * executing a node: the job is retried with backoff instead of failing the
 * run, since nothing is wrong with the run itself.
 */
export class TransientError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TransientError';
  }
}
