import { UUID_PATTERN } from '@weft/contracts';
import { z } from 'zod';
import { hexColor } from './media-params';
import type { NodeValue } from './types';

// The brand a run is given (brand_system_input): checked by the gateway when
// the run is created, normalised by the node, read by the nodes downstream.

const assetId = z
  .string()
  .regex(UUID_PATTERN, { error: 'an asset id is a UUID' })
  .transform((id) => id.toLowerCase());

/** `#abc`, `abc`, `#AABBCC` → `#aabbcc`. */
export function normalHex(text: string): string {
  const hex = text.replace(/^#/, '').toLowerCase();
  return `#${hex.length === 3 ? [...hex].map((c) => c + c).join('') : hex}`;
}

const BrandSchema = z.strictObject({
  name: z.string().min(1).max(200),
  colors: z.array(hexColor.transform(normalHex)).max(64).default([]),
  fonts: z.array(assetId).max(16).default([]),
  logo: assetId.nullable().default(null),
  tone: z.string().max(2000).nullable().default(null),
});

export type Brand = z.output<typeof BrandSchema>;

export interface BrandIssue {
  /** Where in the given value (after JSON text is parsed): `['colors', 1]`. */
  path: (string | number)[];
  message: string;
}

/** A brand given as an object or as JSON text of one, normalised; or what is wrong with it. */
export function parseBrand(value: unknown): { brand: Brand } | { issues: BrandIssue[] } {
  let given = value;
  if (typeof value === 'string') {
    try {
      given = JSON.parse(value);
    } catch {
      return { issues: [{ path: [], message: 'A brand given as text must be JSON of a brand object' }] };
    }
  }
  const parsed = BrandSchema.safeParse(given);
  if (parsed.success) return { brand: parsed.data };
  return {
    issues: parsed.error.issues.map((issue) => ({
      path: issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p)),
      message: issue.message,
    })),
  };
}

/** The brand a data port carries (brand_system_input's output), or undefined for anything else. */
export function brandOf(value: NodeValue): Brand | undefined {
  if (value.type !== 'data' && value.type !== 'text') return undefined;
  const result = parseBrand(value.value);
  return 'brand' in result ? result.brand : undefined;
}
