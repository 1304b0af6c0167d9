import OpenAI from 'openai';
import type { ProviderAdapter } from '../provider-adapter';
import type { PriceTable } from '../prices';
import { openAILlm } from './llm';

export interface OpenAISettings {
  /** OPENAI_API_KEY: without it the adapter serves nothing. */
  apiKey?: string;
  /** OPENAI_BASE_URL: any OpenAI-compatible server (Azure, Groq, Together, OpenRouter, vLLM, Ollama...). */
  baseURL?: string;
  /** Retries of 429, 5xx and connection failures, with backoff honouring Retry-After. */
  maxRetries?: number;
}

/** The OpenAI-compatible adapter: one client for the process, shared by every node it serves. */
export function openAIAdapter(settings: OpenAISettings, prices: PriceTable): ProviderAdapter {
  const client = settings.apiKey
    ? new OpenAI({
        apiKey: settings.apiKey,
        ...(settings.baseURL ? { baseURL: settings.baseURL } : {}),
        maxRetries: settings.maxRetries ?? 2,
        // The node's timeout (ctx.signal) bounds a call; the SDK's own would retry a slow answer.
        timeout: 24 * 60 * 60 * 1000,
        // The SDK logs through console at its own level: requests are the worker's to log, not the SDK's.
        logLevel: 'off',
      })
    : undefined;
  return {
    provider: 'openai',
    credential: 'OPENAI_API_KEY',
    configured: client !== undefined,
    capabilities: client ? { llm: openAILlm(client, prices) } : {},
    defaultModels: { llm: 'gpt-4o-mini' },
  };
}
