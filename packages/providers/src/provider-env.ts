import { envList, envOptionalString } from '@weft/config';
import { z } from 'zod';
import { parsePriceTable } from './prices';
import { parseRouteTable } from './route-table';

/** A zod check from a parser that throws an Error saying what is wrong. */
const parsedBy = (parse: (text: string | undefined) => unknown) => (text: string | undefined, ctx: z.RefinementCtx) => {
  try {
    parse(text);
  } catch (err) {
    // The issue is reported under the setting's name already: the parser's own prefix would say it twice.
    ctx.addIssue({ code: 'custom', message: (err as Error).message.replace(/^[A-Z_]+:? /, '') });
  }
};

const baseUrl = () => envOptionalString().pipe(z.url().optional());

/**
 * The settings of the provider routes, read alike by the gateway (to describe
 * them) and the worker (to call them). Keys are secrets: never logged.
 */
export const providerRouteEnvShape = {
  /** The key of the OpenAI-compatible server: enables the types it serves. */
  OPENAI_API_KEY: envOptionalString(),
  /** Another OpenAI-compatible server (Azure, Groq, Together, OpenRouter, vLLM, Ollama); default OpenAI's. */
  OPENAI_BASE_URL: baseUrl(),
  /** The ElevenLabs key: enables speech, voice cloning, sound isolation, music, transcription and dubbing. */
  ELEVENLABS_API_KEY: envOptionalString(),
  /** Another ElevenLabs server (a data-residency one: https://api.eu.residency.elevenlabs.io); default ElevenLabs'. */
  ELEVENLABS_BASE_URL: baseUrl(),
  /** The key of fal (fal.ai): enables the image, video and audio types its queue API serves. */
  FAL_KEY: envOptionalString(),
  /** A proxy or fal-compatible server for every fal request (queue and storage); default fal's own hosts. */
  FAL_BASE_URL: baseUrl(),
  /** The Apify API token: enables the five extractor types (socialads_extractor, ...), each through a store actor. */
  APIFY_TOKEN: envOptionalString(),
  /** Another server speaking Apify's API v2 (a proxy or a double); default https://api.apify.com. */
  APIFY_BASE_URL: baseUrl(),
  /** The API token of Replicate: enables the types its models serve (REPLICATE_MODELS). */
  REPLICATE_API_TOKEN: envOptionalString(),
  /** Another server speaking Replicate's HTTP API; default https://api.replicate.com/v1. */
  REPLICATE_BASE_URL: baseUrl(),
  /** type=provider[:model],... : which provider and model serve each type (default: each type's documented route). */
  NODE_ROUTES: envOptionalString().superRefine(parsedBy(parseRouteTable)),
  /**
   * Destinations nodes and organizations' provider base URLs may reach despite
   * the address rules: host names, IPs or CIDR ranges.
   */
  OUTBOUND_ALLOWED_HOSTS: envList().default([]),
};

/** What provider calls cost: read by the worker, which charges them. */
export const priceTableEnvShape = {
  /** JSON {"provider:model": {input_per_million, per_image, ...}} in credits, over the defaults. */
  PRICE_TABLE: envOptionalString().superRefine(parsedBy(parsePriceTable)),
};

/** The provider settings as a process's config holds them. */
export type ProviderEnv = {
  [K in keyof typeof providerRouteEnvShape]?: z.output<(typeof providerRouteEnvShape)[K]>;
} & {
  PRICE_TABLE?: string | undefined;
};
