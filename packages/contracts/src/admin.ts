import { z } from './zod';

export const CreateOrganizationBody = z
  .object({
    name: z.string().min(1).max(200),
    credits: z.number().int().min(0).max(2_000_000_000).default(0),
  })
  .openapi('CreateOrganization');

export const OrganizationCreatedSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    credits: z.number().int(),
    api_key: z.string().openapi({ description: 'Shown once; store it now.' }),
  })
  .openapi('OrganizationCreated');

export const CreateApiKeyBody = z.object({ name: z.string().min(1).max(200).optional() }).openapi('CreateApiKey');

export const ApiKeyCreatedSchema = z.object({ id: z.uuid(), api_key: z.string() }).openapi('ApiKeyCreated');

export const AdjustCreditsBody = z
  .object({ delta: z.number().int().min(-2_000_000_000).max(2_000_000_000) })
  .openapi('AdjustCredits');

export const CreditsSchema = z.object({ credits: z.number().int() }).openapi('Credits');
