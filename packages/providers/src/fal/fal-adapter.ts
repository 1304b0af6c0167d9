import { ApiError, type FalClient } from '@fal-ai/client';
import type { NodeType } from '@weft/contracts';
import type { Capability } from '../capability';
import { deploymentCredential, type EndpointSettings, type ProviderAdapter } from '../provider-adapter';
import { falCapability } from './fal-capability';
import { falClient } from './fal-client';
import { FAL_MODELS } from './fal-models';
import { cancelRequest, recordedRequest } from './fal-queue';

export interface FalSettings extends EndpointSettings {
  /** Between two status polls of a queued request (default 1 s). */
  pollIntervalMs?: number;
}

/** A request id no one has: asking its status costs nothing and tells a refused key (401) from a good one (404). */
const NO_REQUEST = '00000000-0000-0000-0000-000000000000';

/** fal's queue API: FAL_KEY, and FAL_BASE_URL for a proxy or a compatible server. */
export function falAdapter(settings: FalSettings): ProviderAdapter<FalClient> {
  const queue = { pollIntervalMs: settings.pollIntervalMs ?? 1000 };
  const capabilities: Partial<Record<NodeType, Capability<FalClient>>> = {};
  for (const [type, mapping] of Object.entries(FAL_MODELS)) {
    capabilities[type as NodeType] = falCapability(mapping, queue);
  }
  return {
    provider: 'fal',
    credential: 'FAL_KEY',
    deployment: deploymentCredential('FAL_KEY', settings),
    connect: falClient,
    async verify(client, signal) {
      try {
        await client.queue.status(FAL_MODELS.image_generation!.defaultModel, {
          requestId: NO_REQUEST,
          abortSignal: signal,
        });
      } catch (err) {
        if (err instanceof ApiError && err.status !== 401 && err.status !== 403 && err.status < 500) return;
        throw err;
      }
    },
    capabilities,
    async cancelJob(client, job, signal) {
      const request = recordedRequest(job);
      // Without its app the request cannot be named to fal: submitOnce always records it.
      if (!request) throw new Error(`the fal request ${job.id} has no app recorded`);
      await cancelRequest(client, request, signal);
    },
  };
}
