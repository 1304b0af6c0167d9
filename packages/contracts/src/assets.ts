import { cursorPage, ExternalId, IdParam, PaginationQuery, repeatable } from './common';
import { AssetTypeSchema, AssetVisibilitySchema, MediaExtensionSchema, MediaTypeSchema } from './enums';
import { z } from './zod';

// Assets (docs/api.md#assets).

const MetadataValue = z.union([z.string(), z.number(), z.boolean(), z.null()]);

const assetSummaryShape = {
  id: z.uuid(),
  external_id: z.string().nullable().optional(),
  asset_type: AssetTypeSchema,
  media_type: MediaTypeSchema,
  media_extension: MediaExtensionSchema,
  visibility: AssetVisibilitySchema,
  bookmarked: z.boolean().default(false),
  archived: z.boolean().default(false),
  downloaded: z.boolean().default(false).openapi({ description: 'Whether the file has been downloaded before.' }),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
  url: z.string().openapi({
    description:
      'Thumbnail or preview size (the file itself until the preview exists, and for types without one). ' +
      'A presigned URL valid for ASSET_URL_TTL_SECONDS (default one hour, at least half of that from the ' +
      'response), or a plain URL on ASSET_PUBLIC_BASE_URL when a CDN is configured: no credentials needed. ' +
      'Raster images, video and audio are served inline with their own type; every other type (SVG, ' +
      'documents, text, fonts) as an attachment of type application/octet-stream, through a presigned URL ' +
      'even with a CDN, so that a browser saves it rather than running it.',
  }),
  large_url: z.string().nullable().optional().openapi({ description: 'The full-size file, fetchable like `url`.' }),
  agent_id: z.uuid().nullable().optional().openapi({ description: 'Producing agent; null for uploads.' }),
  run_id: z.uuid().nullable().optional().openapi({ description: 'Producing run; null for uploads.' }),
};

export const AssetSummarySchema = z.object(assetSummaryShape).openapi('AssetSummary');

export const AssetSchema = z
  .object({
    ...assetSummaryShape,
    asset_metadata: z
      .record(z.string(), MetadataValue)
      .optional()
      .openapi({
        description:
          'Technical metadata filled in by background processing: width, height, aspect_ratio, duration ' +
          '(seconds), codec, frame_rate, sample_rate, channels, size_bytes, ... as the type offers. Always an ' +
          'object, never null: `{}` until processing has read the file.',
      }),
    is_flow_output_sample: z.boolean().default(false),
    blur_hash: z.string().nullable().optional().openapi({ description: 'BlurHash of images, once processed.' }),
  })
  .openapi('Asset');

export const AssetPageSchema = cursorPage(AssetSummarySchema, 'CursorPage_AssetSummary');

export const ListAssetsQuery = PaginationQuery.extend({
  asset_ids: repeatable(IdParam).openapi({ description: 'Repeatable; unknown or inaccessible ids are left out.' }),
  agent_id: IdParam.optional().openapi({ description: 'Assets produced by runs of this agent (never uploads).' }),
  run_id: IdParam.optional().openapi({ description: 'Assets produced by this run (never uploads).' }),
  external_id: ExternalId.optional(),
});

/** The text fields of an upload; the file itself is streamed, never parsed into a body. */
export const UploadAssetFields = z.object({
  visibility: AssetVisibilitySchema.default('private').openapi({
    description: 'private = own organization only, public = everyone, shared = via shared links',
  }),
  filename: z.string().max(1024).optional().openapi({ description: 'Display name; the uploaded part name otherwise.' }),
  external_id: ExternalId.optional().openapi({
    description: 'Idempotency key, unique per organization among uploads (separate from runs).',
  }),
});

/** The multipart/form-data request as documented. */
export const UploadAssetForm = UploadAssetFields.extend({
  file: z.string().openapi({ type: 'string', format: 'binary', description: 'The file (required).' }),
}).openapi('UploadAsset');

export const DownloadAssetQuery = z.object({
  svg: z
    .enum(['true', 'false'])
    .optional()
    .transform((v) => v === 'true')
    .openapi({
      type: 'boolean',
      description:
        'Experimental: trace a raster image (png, jpg, webp, avif, heic) into a black-and-white SVG with ' +
        'potrace. 400 for any other type.',
    }),
});

export type Asset = z.infer<typeof AssetSchema>;
export type AssetSummary = z.infer<typeof AssetSummarySchema>;
