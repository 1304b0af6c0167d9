import { ApifyClient } from 'apify-client';
import type { ProviderCredential } from '../credentials';
import { deploymentCredential, type EndpointSettings, type Fetch, type ProviderAdapter } from '../provider-adapter';
import { EXTRACTOR_TYPES } from './apify-actors';
import { abortRun, apifyExtractor, type ExtractSettings } from './apify-extract';
import { fetchTransport, signalInterceptor, withSignal } from './apify-transport';

/** LogLevel.OFF of @apify/log, the SDK's logger. */
const LOG_OFF = 0;

export interface ApifySettings extends EndpointSettings, Partial<ExtractSettings> {
  /** Retries of 429, 5xx and network failures (the SDK's exponential backoff). */
  maxRetries?: number;
  /** The first retry's delay; each next one doubles it. */
  retryDelayMs?: number;
}

/** The Apify adapter: APIFY_TOKEN and APIFY_BASE_URL; the five extractor types, each through a store actor. */
export function apifyAdapter(settings: ApifySettings): ProviderAdapter<ApifyClient> {
  const extract: ExtractSettings = { waitSecs: settings.waitSecs ?? 60, minPollMs: settings.minPollMs ?? 2000 };
  return {
    provider: 'apify',
    credential: 'APIFY_TOKEN',
    deployment: deploymentCredential('APIFY_TOKEN', settings),
    connect: (credential: ProviderCredential, fetch: Fetch | undefined) => {
      const client = new ApifyClient({
        token: credential.secret,
        ...(credential.baseURL ? { baseUrl: credential.baseURL } : {}),
        maxRetries: settings.maxRetries ?? 4,
        minDelayBetweenRetriesMillis: settings.retryDelayMs ?? 500,
        // A poll waits up to 60 s on Apify's side; the node's timeout (ctx.signal) bounds everything else.
        timeoutSecs: 120,
        requestInterceptors: [signalInterceptor, ...(fetch ? [fetchTransport(fetch)] : [])],
      });
      // The SDK logs its retries to the console: requests are the worker's to log, not the SDK's.
      client.logger.setLevel(LOG_OFF);
      return client;
    },
    async verify(client, signal) {
      await withSignal(signal, () => client.user('me').get());
    },
    capabilities: Object.fromEntries(EXTRACTOR_TYPES.map((type) => [type, apifyExtractor(type, extract)])),
    cancelJob: (client, job, signal) => abortRun(client, job.id, signal),
  };
}
