import type { NodeType } from '@weft/contracts';
import Replicate from 'replicate';
import type { Capability } from '../capability';
import type { ProviderCredential } from '../credentials';
import { deploymentCredential, type EndpointSettings, type Fetch, type ProviderAdapter } from '../provider-adapter';
import { replicateCapability } from './replicate-capability';
import { REPLICATE_MODELS } from './replicate-models';
import { cancelPrediction, DEFAULT_POLL, PROVIDER, type PollPolicy } from './replicate-prediction';
import { DEFAULT_RETRY, retryingFetch, type RetryPolicy } from './replicate-retry';

export interface ReplicateSettings extends EndpointSettings {
  /** How 429s (and 5xx of GETs) are retried. */
  retry?: RetryPolicy;
  /** How often a running prediction is polled. */
  poll?: PollPolicy;
}

/** The Replicate adapter: REPLICATE_API_TOKEN and REPLICATE_BASE_URL; any model, by the types of REPLICATE_MODELS. */
export function replicateAdapter(settings: ReplicateSettings): ProviderAdapter<Replicate> {
  const poll = settings.poll ?? DEFAULT_POLL;
  const capabilities: Partial<Record<NodeType, Capability<Replicate>>> = {};
  for (const [type, model] of Object.entries(REPLICATE_MODELS)) {
    capabilities[type as NodeType] = replicateCapability(model, poll);
  }
  return {
    provider: PROVIDER,
    credential: 'REPLICATE_API_TOKEN',
    deployment: deploymentCredential('REPLICATE_API_TOKEN', settings),
    connect: (credential: ProviderCredential, fetch: Fetch | undefined) =>
      new Replicate({
        auth: credential.secret,
        ...(credential.baseURL ? { baseUrl: credential.baseURL } : {}),
        fetch: retryingFetch(fetch ?? globalThis.fetch, settings.retry ?? DEFAULT_RETRY),
        // Files read back as the URLs Replicate answers: results.ts fetches them under the outbound rules.
        useFileOutput: false,
      }),
    async verify(client, signal) {
      await client.accounts.current({ signal });
    },
    capabilities,
    cancelJob: (client, job, signal) => cancelPrediction(client, job.id, signal),
  };
}
