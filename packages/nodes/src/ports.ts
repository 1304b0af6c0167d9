import type { DataType } from '@weft/contracts';
import { z } from 'zod';
import type { PortSpec } from './definition';

// The port shapes node types share, so a definition reads as a list of its ports.

/** Text, or a list of text (text_split's output): anything that reads as text. */
export const TEXT_KINDS: readonly DataType[] = ['text', 'data'];

function port(accepts: readonly DataType[], description: string, required: boolean, many: boolean): PortSpec {
  return { accepts, description, required, many };
}

export const textPort = (description: string, required = true): PortSpec =>
  port(TEXT_KINDS, description, required, false);
export const textsPort = (description: string, required = true): PortSpec =>
  port(TEXT_KINDS, description, required, true);
export const imagePort = (description: string, required = true): PortSpec =>
  port(['images'], description, required, false);
export const videoPort = (description: string, required = true): PortSpec =>
  port(['videos'], description, required, false);
export const audioPort = (description: string, required = true): PortSpec =>
  port(['audio'], description, required, false);
/** Audio, or a video whose sound is used. */
export const mediaPort = (description: string, required = true): PortSpec =>
  port(['audio', 'videos'], description, required, false);
export const dataPort = (description: string, required = true): PortSpec =>
  port(['data', 'text'], description, required, false);

/** Params every provider-served type takes (docs/providers.md#routes): route choice and provider-specific extras. */
export const providerParams = {
  provider: z
    .string()
    .min(1)
    .optional()
    .describe('A provider this deployment allows for the type, instead of its route'),
  model: z.string().min(1).optional().describe("The provider's model, instead of the route's"),
  credential_id: z
    .uuid()
    .optional()
    .describe("One of the organization's stored credentials (POST /credentials) to call the provider with"),
  options: z
    .record(z.string(), z.unknown())
    .optional()
    .describe('Provider-specific settings, passed to the provider as they are'),
};

/** No params of its own. */
export const noParams = z.object({});
