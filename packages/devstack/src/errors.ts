/**
 * A problem the user can fix from its message alone (a taken port, a missing
 * program, a server that would not start): callers print the message without
 * a stack trace.
 */
export class DevstackError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

/**
 * A port answers, but not as the service we expected there. Starting our own
 * server on it would fail with a less helpful EADDRINUSE, so we stop early and
 * name the port and the variable that lets the user point elsewhere.
 */
export class PortInUseError extends DevstackError {
  constructor(
    readonly port: number,
    expected: string,
    hint: string,
    cause?: unknown,
  ) {
    const reason = cause instanceof Error ? ` (${cause.message.trim().replace(/\.+$/, '')})` : '';
    super(`Port ${port} on 127.0.0.1 is in use, but it does not answer as ${expected}${reason}. ${hint}`);
  }
}

/** Something we need is not installed and we cannot install it ourselves. */
export class MissingDependencyError extends DevstackError {}

/** A port we must listen on ourselves is taken (or not ours to take). */
export class PortUnavailableError extends DevstackError {
  constructor(
    readonly port: number,
    message: string,
  ) {
    super(message);
  }
}
