import type { UsageUnit } from '@weft/nodes';
import { z } from 'zod';
import { FAL_PRICES } from './fal/fal-prices';
import { APIFY_PRICES } from './apify/apify-prices';
import { OPENAI_PRICES } from './openai/openai-prices';
import { REPLICATE_PRICES } from './replicate/replicate-prices';
import { ELEVENLABS_PRICES } from './elevenlabs/elevenlabs-prices';

// What provider calls cost, in credits (1 credit = US$0.001 by default), per
// `provider:model`, with a `provider:*` entry for the models a provider serves
// that the table does not list. A price names the units it charges: tokens
// (per million, in and out), images, megapixels, seconds of media, thousands
// of characters, requests, items. PRICE_TABLE (JSON of the same shape)
// overrides or adds entries.

export const UnitPrice = z
  .object({
    input_per_million: z.number().min(0),
    output_per_million: z.number().min(0),
    per_image: z.number().min(0),
    per_megapixel: z.number().min(0),
    per_second: z.number().min(0),
    per_thousand_characters: z.number().min(0),
    per_request: z.number().min(0),
    per_item: z.number().min(0),
  })
  .partial()
  .strict();
export type UnitPrice = z.infer<typeof UnitPrice>;

const PRICE_KEY = /^[a-z0-9_-]+:.+$/;

export const PriceTable = z.record(z.string().regex(PRICE_KEY), UnitPrice);
export type PriceTable = z.infer<typeof PriceTable>;

/** The defaults: list prices of each provider at the time of writing, in credits. */
export const DEFAULT_PRICES: PriceTable = {
  ...FAL_PRICES,
  ...APIFY_PRICES,
  ...OPENAI_PRICES,
  ...REPLICATE_PRICES,
  ...ELEVENLABS_PRICES,
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

/** Each unit's price field and divisor. */
const UNIT_PRICES: Record<UsageUnit, [keyof UnitPrice, number]> = {
  input_tokens: ['input_per_million', 1_000_000],
  output_tokens: ['output_per_million', 1_000_000],
  images: ['per_image', 1],
  megapixels: ['per_megapixel', 1],
  seconds: ['per_second', 1],
  characters: ['per_thousand_characters', 1000],
  requests: ['per_request', 1],
  items: ['per_item', 1],
};

/** The credits of a call: its price applied to the usage reported, rounded up to whole credits. */
export function creditsFor(
  table: PriceTable,
  provider: string,
  model: string,
  usage: Partial<Record<UsageUnit, number>>,
): number {
  const price = table[`${provider}:${model}`] ?? table[`${provider}:*`];
  if (!price) return 0;
  let exact = 0;
  for (const [unit, amount] of Object.entries(usage) as [UsageUnit, number][]) {
    const [field, per] = UNIT_PRICES[unit];
    exact += (amount * (price[field] ?? 0)) / per;
  }
  // The tolerance keeps float noise (3.0000000000000004) from costing a credit.
  return Math.max(0, Math.ceil(exact - 1e-9));
}
