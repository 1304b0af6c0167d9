import { ElevenLabsClient } from '@elevenlabs/elevenlabs-js';
import type { ProviderCredential } from '../credentials';
import { deploymentCredential, type EndpointSettings, type Fetch, type ProviderAdapter } from '../provider-adapter';
import { elevenLabsCloneVoice } from './clone-voice';
import { deleteDubbing, elevenLabsDubbing } from './dubbing';
import { elevenLabsIsolateSound } from './isolate-sound';
import { elevenLabsMusic } from './music';
import { elevenLabsSpeech } from './speech';
import { elevenLabsTranscribe } from './transcribe';

/** How long the provider may take to start answering a request (music and long transcriptions take minutes). */
const ANSWER_TIMEOUT_S = 20 * 60;

export interface ElevenLabsSettings extends EndpointSettings {
  /** Retries of 408, 429 and 5xx, with backoff and jitter honouring Retry-After (the SDK's own). */
  maxRetries?: number;
  /** The first wait between polls of a dubbing job (then doubling). */
  pollIntervalMs?: number;
}

/** The ElevenLabs adapter: ELEVENLABS_API_KEY, and ELEVENLABS_BASE_URL for a residency or compatible server. */
export function elevenLabsAdapter(settings: ElevenLabsSettings): ProviderAdapter<ElevenLabsClient> {
  const dubbing = { pollIntervalMs: settings.pollIntervalMs ?? 2000 };
  return {
    provider: 'elevenlabs',
    credential: 'ELEVENLABS_API_KEY',
    deployment: deploymentCredential('ELEVENLABS_API_KEY', settings),
    connect: (credential: ProviderCredential, fetch: Fetch | undefined) =>
      new ElevenLabsClient({
        // Always given: the SDK would otherwise read ELEVENLABS_API_KEY itself, whoever's credential this is.
        apiKey: credential.secret,
        ...(credential.baseURL ? { baseUrl: credential.baseURL } : {}),
        ...(fetch ? { fetch } : {}),
        maxRetries: settings.maxRetries ?? 2,
        // The node's timeout (ctx.signal) bounds a call. The SDK's own bounds the wait for an answer's
        // headers: its default (240 s) would cut a long transcription short, and the SDK leaves the
        // timer of an aborted request running, so it is kept finite rather than a day.
        timeoutInSeconds: ANSWER_TIMEOUT_S,
        // Silent: requests are the worker's to log, never the SDK's.
        logging: { silent: true },
      }),
    async verify(client, signal) {
      await client.user.get({ abortSignal: signal, maxRetries: 0 });
    },
    capabilities: {
      text_to_speech: elevenLabsSpeech(),
      clone_voice: elevenLabsCloneVoice(),
      isolate_sound: elevenLabsIsolateSound(),
      music_generation: elevenLabsMusic(),
      transcribe: elevenLabsTranscribe(),
      translate_audio: elevenLabsDubbing('audio', dubbing),
      translate_video: elevenLabsDubbing('video', dubbing),
    },
    // Its only jobs recorded in provider_jobs are dubbings.
    cancelJob: (client, job, signal) => deleteDubbing(client, job.id, signal),
  };
}
