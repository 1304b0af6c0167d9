import { z } from './zod';

// An organization's own provider keys (docs/api.md#credentials): stored sealed, shown
// only by their last four characters.

export const CREDENTIAL_PROVIDERS = ['openai', 'fal', 'replicate', 'elevenlabs', 'apify', 's3'] as const;

/** S3-compatible storage: what is not secret beside the secret access key. */
export const S3CredentialSettings = z
  .object({
    bucket: z.string().min(3).max(63),
    access_key_id: z.string().min(1).max(256),
    region: z.string().min(1).max(64).default('us-east-1'),
    endpoint: z.url().optional().openapi({ description: 'An S3-compatible server; default AWS S3 of the region.' }),
    force_path_style: z.boolean().default(false),
  })
  .strict()
  .openapi('S3CredentialSettings');

export const CreateCredentialBody = z
  .object({
    provider: z.enum(CREDENTIAL_PROVIDERS),
    name: z.string().min(1).max(200).optional(),
    secret: z.string().min(4).max(4096).openapi({
      description: 'The key or token (s3: the secret access key). Never shown again: only its last 4 characters.',
    }),
    base_url: z.url().max(2048).optional().openapi({
      description:
        "Another server speaking the provider's protocol (a proxy, a self-hosted model server); subject to the outbound address rules.",
    }),
    settings: S3CredentialSettings.optional().openapi({ description: 'Required for s3, refused otherwise.' }),
  })
  .strict()
  .openapi('CreateCredential');

export const CredentialSchema = z
  .object({
    id: z.uuid(),
    provider: z.string(),
    name: z.string().nullable(),
    base_url: z.string().nullable(),
    settings: z.record(z.string(), z.unknown()).nullable(),
    last4: z.string().openapi({ description: 'The last 4 characters of the secret, to tell credentials apart.' }),
    created_at: z.string(),
  })
  .openapi('Credential');

export const CredentialListSchema = z.object({ data: z.array(CredentialSchema) }).openapi('CredentialList');

export const ResealedSchema = z.object({ resealed: z.number().int() }).openapi('Resealed');

/** An organization's choice of provider for a node type, over the deployment's NODE_ROUTES. */
export const NodeRouteChoiceBody = z
  .object({
    provider: z.string().min(1).max(64),
    model: z.string().min(1).max(300).optional().openapi({ description: "The provider's model; default its own" }),
  })
  .strict()
  .openapi('NodeRouteChoice');

export const ChosenNodeRouteSchema = z
  .object({ type: z.string(), provider: z.string(), model: z.string().nullable() })
  .openapi('ChosenNodeRoute');

export const ChosenNodeRouteListSchema = z
  .object({ data: z.array(ChosenNodeRouteSchema) })
  .openapi('ChosenNodeRouteList');
