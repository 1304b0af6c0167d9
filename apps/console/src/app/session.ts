import { WeftBrowserClient } from '@weft/sdk/browser';

// The API key lives in this tab's session storage only: never in a URL, a
// cookie or local storage, so it goes when the tab closes and no other
// tab or page script on another path can read it from a cookie.

const KEY = 'weft.apiKey';

export function storedKey(): string | undefined {
  return sessionStorage.getItem(KEY) ?? undefined;
}

export function storeKey(apiKey: string): void {
  sessionStorage.setItem(KEY, apiKey);
}

export function forgetKey(): void {
  sessionStorage.removeItem(KEY);
}

/** A client of the gateway that served this page, as the holder of `apiKey`. */
export function clientFor(apiKey: string): WeftBrowserClient {
  return new WeftBrowserClient({
    baseUrl: window.location.origin,
    apiKey,
    // A person is waiting: fewer, quicker retries than a script would want.
    retry: { maxAttempts: 3 },
  });
}
