import { falAdapter } from './fal/fal-adapter';
import { apifyAdapter } from './apify/apify-adapter';
import { elevenLabsAdapter } from './elevenlabs/elevenlabs-adapter';
import { openAIAdapter } from './openai/openai-adapter';
import type { ProviderAdapter } from './provider-adapter';
import { s3Adapter } from './s3/s3-adapter';
import { replicateAdapter } from './replicate/replicate-adapter';
import type { ProviderEnv } from './provider-env';

/**
 * Every adapter of this version, from the deployment's settings, in the order
 * the routes try them for a type NODE_ROUTES does not name.
 */
export function deploymentAdapters(env: ProviderEnv): ProviderAdapter[] {
  const bases: Record<string, string | undefined> = {
    openai: env.OPENAI_BASE_URL,
    fal: env.FAL_BASE_URL,
    apify: env.APIFY_BASE_URL,
    replicate: env.REPLICATE_BASE_URL,
    elevenlabs: env.ELEVENLABS_BASE_URL,
  };
  return [
    openAIAdapter({ apiKey: env.OPENAI_API_KEY, baseURL: env.OPENAI_BASE_URL }),
    s3Adapter(env.OUTBOUND_ALLOWED_HOSTS ?? []),
    falAdapter({ apiKey: env.FAL_KEY, baseURL: env.FAL_BASE_URL }),
    apifyAdapter({ apiKey: env.APIFY_TOKEN, baseURL: env.APIFY_BASE_URL }),
    replicateAdapter({ apiKey: env.REPLICATE_API_TOKEN, baseURL: env.REPLICATE_BASE_URL }),
    elevenLabsAdapter({ apiKey: env.ELEVENLABS_API_KEY, baseURL: env.ELEVENLABS_BASE_URL }),
  ].map((adapter) => ({ ...adapter, defaultBaseURL: bases[adapter.provider] }));
}
