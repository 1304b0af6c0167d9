import net from 'node:net';
import { Agent, buildConnector, fetch as undiciFetch } from 'undici';
import { hostAllowed, refusedAddress, type AllowList } from './address-policy';
import { checkedLookup, RefusedDestinationError } from './guarded-request';

/**
 * A WHATWG fetch that never connects to a refused address (docs/api.md#outbound-requests),
 * for SDKs that take a `fetch`: every connection, redirects included, is made
 * by a connector that checks the addresses a name resolves to and connects to
 * exactly those. A name on the allow list is connected to as is. The agent
 * keeps connections alive like the process's own fetch. `who` names the
 * callers in refusals ("which nodes may not reach").
 */
export function guardedFetch(allow: AllowList, who = 'nodes'): typeof globalThis.fetch {
  const checked = buildConnector({ lookup: checkedLookup(allow, who) });
  const plain = buildConnector({});
  const dispatcher = new Agent({
    connect(options, callback) {
      const host = options.hostname.replace(/^\[|\]$/g, '');
      if (hostAllowed(allow, host)) return plain(options, callback);
      if (net.isIP(host)) {
        // A literal address is never looked up: judged here, before connecting.
        const why = refusedAddress(allow, host);
        if (why) return callback(new RefusedDestinationError(`${host} is ${why}, which ${who} may not reach`), null);
      }
      return checked(options, callback);
    },
  });
  return ((input: Parameters<typeof undiciFetch>[0], init?: Parameters<typeof undiciFetch>[1]) =>
    undiciFetch(input, { ...init, dispatcher })) as unknown as typeof globalThis.fetch;
}

/** The refusal behind a failed guarded fetch (undici wraps connector errors in a TypeError's cause). */
export function refusalOf(err: unknown): RefusedDestinationError | undefined {
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    if (e instanceof RefusedDestinationError) return e;
  }
  return undefined;
}
