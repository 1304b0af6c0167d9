import OpenAI from 'openai';
import type { ProviderCredential } from '../credentials';
import { deploymentCredential, type EndpointSettings, type Fetch, type ProviderAdapter } from '../provider-adapter';
import { openAILlm } from './llm';

export interface OpenAISettings extends EndpointSettings {
  /** Retries of 429, 5xx and connection failures, with backoff honouring Retry-After. */
  maxRetries?: number;
}

/** The OpenAI-compatible adapter: OPENAI_API_KEY and OPENAI_BASE_URL (Azure, Groq, Together, OpenRouter, vLLM, Ollama...). */
export function openAIAdapter(settings: OpenAISettings): ProviderAdapter<OpenAI> {
  return {
    provider: 'openai',
    credential: 'OPENAI_API_KEY',
    deployment: deploymentCredential('OPENAI_API_KEY', settings),
    connect: (credential: ProviderCredential, fetch: Fetch | undefined) =>
      new OpenAI({
        apiKey: credential.secret,
        ...(credential.baseURL ? { baseURL: credential.baseURL } : {}),
        ...(fetch ? { fetch } : {}),
        maxRetries: settings.maxRetries ?? 2,
        // The node's timeout (ctx.signal) bounds a call; the SDK's own would retry a slow answer.
        timeout: 24 * 60 * 60 * 1000,
        // The SDK logs through console at its own level: requests are the worker's to log, not the SDK's.
        logLevel: 'off',
      }),
    async verify(client, signal) {
      await client.models.list({ signal });
    },
    capabilities: { llm: openAILlm() },
  };
}
