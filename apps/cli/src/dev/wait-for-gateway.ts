import type { AppProcess } from './app-process';

/**
 * Polls GET /readyz until it answers 200 (database, Redis and storage all
 * reachable). Fails at once if the gateway process exits meanwhile — a bad
 * config or a taken port — instead of waiting for the timeout.
 */
export async function waitForGateway(baseUrl: string, gateway: AppProcess, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer yet';
  while (Date.now() < deadline) {
    if (gateway.hasExited())
      throw new Error(`The gateway exited during start-up (${await gateway.exited}); see its output above.`);
    try {
      const res = await fetch(`${baseUrl}/readyz`, { signal: AbortSignal.timeout(3000) });
      if (res.ok) return;
      last = `${res.status} ${await res.text()}`;
    } catch (err) {
      last = (err as Error & { cause?: Error }).cause?.message ?? (err as Error).message;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`The gateway was not ready after ${timeoutMs / 1000}s (last /readyz: ${last}).`);
}
