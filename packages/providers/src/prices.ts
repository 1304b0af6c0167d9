import { z } from 'zod';

// What provider calls cost, in credits (1 credit = US$0.001 by default): per
// million input and output tokens, per `provider:model`, with a `provider:*`
// entry for the models a provider serves that the table does not list.
// PRICE_TABLE (JSON of the same shape) overrides or adds entries.

export const TokenPrice = z
  .object({
    input_per_million: z.number().min(0),
    output_per_million: z.number().min(0),
  })
  .strict();
export type TokenPrice = z.infer<typeof TokenPrice>;

const PRICE_KEY = /^[a-z0-9_-]+:.+$/;

export const PriceTable = z.record(z.string().regex(PRICE_KEY), TokenPrice);
export type PriceTable = z.infer<typeof PriceTable>;

/** The defaults: list prices of the provider at the time of writing, in credits. */
export const DEFAULT_PRICES: PriceTable = {
  'openai:gpt-4o-mini': { input_per_million: 150, output_per_million: 600 },
  'openai:gpt-4o': { input_per_million: 2500, output_per_million: 10_000 },
  'openai:gpt-4.1': { input_per_million: 2000, output_per_million: 8000 },
  'openai:gpt-4.1-mini': { input_per_million: 400, output_per_million: 1600 },
  'openai:gpt-4.1-nano': { input_per_million: 100, output_per_million: 400 },
  // An unknown model is priced as a large one: undercharging is the costlier mistake.
  'openai:*': { input_per_million: 2500, output_per_million: 10_000 },
};

/** PRICE_TABLE over the defaults; throws an Error saying what is wrong with it. */
export function parsePriceTable(json: string | undefined): PriceTable {
  if (!json) return DEFAULT_PRICES;
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    throw new Error('PRICE_TABLE is not JSON');
  }
  const badKey = raw && typeof raw === 'object' ? Object.keys(raw).find((k) => !PRICE_KEY.test(k)) : undefined;
  if (badKey !== undefined) throw new Error(`PRICE_TABLE: '${badKey}' is not provider:model`);
  const parsed = PriceTable.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`PRICE_TABLE: ${issue?.path.join('.') ?? ''} ${issue?.message ?? 'is invalid'}`);
  }
  return { ...DEFAULT_PRICES, ...parsed.data };
}

export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
}

/** The credits of a call: its price applied to the usage reported, rounded up to whole credits. */
export function creditsFor(table: PriceTable, provider: string, model: string, usage: TokenUsage): number {
  const price = table[`${provider}:${model}`] ?? table[`${provider}:*`];
  if (!price) return 0;
  const exact =
    (usage.inputTokens * price.input_per_million + usage.outputTokens * price.output_per_million) / 1_000_000;
  // The tolerance keeps float noise (3.0000000000000004) from costing a credit.
  return Math.max(0, Math.ceil(exact - 1e-9));
}
