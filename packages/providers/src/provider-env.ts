import { envOptionalString } from '@weft/config';
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

/** The settings of the provider routes, read alike by the gateway (to describe them) and the worker (to call them). */
export const providerRouteEnvShape = {
  /** The key of the OpenAI-compatible server: enables the types it serves (llm). A secret: never logged. */
  OPENAI_API_KEY: envOptionalString(),
  /** Another OpenAI-compatible server (Azure, Groq, Together, OpenRouter, vLLM, Ollama); default OpenAI's. */
  OPENAI_BASE_URL: envOptionalString().pipe(z.url().optional()),
  /** type=provider[:model],... : which provider and model serve each type (default: each type's documented route). */
  NODE_ROUTES: envOptionalString().superRefine(parsedBy(parseRouteTable)),
};

/** What provider calls cost: read by the worker, which charges them. */
export const priceTableEnvShape = {
  /** JSON {"provider:model": {input_per_million, output_per_million}} in credits, over the defaults. */
  PRICE_TABLE: envOptionalString().superRefine(parsedBy(parsePriceTable)),
};
