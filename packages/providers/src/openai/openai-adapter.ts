import OpenAI from 'openai';
import type { ProviderCredential } from '../credentials';
import { deploymentCredential, type EndpointSettings, type Fetch, type ProviderAdapter } from '../provider-adapter';
import { openAIImageEdit, openAIImageErase, openAIImageGeneration } from './images';
import { openAILlm } from './llm';
import { openAISpeech } from './speech';
import { openAITranscribe } from './transcribe';
import { deleteVideoJob, openAIVideo } from './video';

export interface OpenAISettings extends EndpointSettings {
  /** Retries of 429, 5xx and connection failures, with backoff honouring Retry-After. */
  maxRetries?: number;
  /** How often a video job is polled (default 5 s: videos take minutes, and each poll is a request). */
  videoPollIntervalMs?: number;
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
    capabilities: {
      llm: openAILlm(),
      image_generation: openAIImageGeneration(),
      image_edit: openAIImageEdit(),
      image_erase: openAIImageErase(),
      text_to_speech: openAISpeech(),
      transcribe: openAITranscribe(),
      video_generation: openAIVideo(settings.videoPollIntervalMs ?? 5_000),
    },
    // Its only jobs recorded in provider_jobs are video jobs.
    cancelJob: (client, job, signal) => deleteVideoJob(client, job.id, signal),
  };
}
