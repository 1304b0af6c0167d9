import type { Asset, AssetSummary, MEDIA_EXTENSIONS } from '@weft/contracts';
import type { Asset as AssetRow } from '@weft/db';
import { INLINE_EXTENSIONS } from '@weft/media';
import type { ServedAs, UrlSigner } from '@weft/storage';
import { attachmentDisposition, displayName } from './filename';

type MediaExtension = (typeof MEDIA_EXTENSIONS)[number];

/** The columns a summary needs (list-assets.ts selects the same in SQL). */
export const ASSET_SUMMARY_SELECT = {
  id: true,
  externalId: true,
  assetType: true,
  mediaType: true,
  mediaExtension: true,
  filename: true,
  visibility: true,
  bookmarked: true,
  archived: true,
  downloaded: true,
  createdAt: true,
  updatedAt: true,
  storageKey: true,
  previewKey: true,
  agentId: true,
  runId: true,
} as const;

export type AssetSummaryRow = Pick<AssetRow, keyof typeof ASSET_SUMMARY_SELECT>;
export type AssetFullRow = AssetSummaryRow & Pick<AssetRow, 'assetMetadata' | 'isFlowOutputSample' | 'blurHash'>;

export const ASSET_FULL_SELECT = {
  ...ASSET_SUMMARY_SELECT,
  assetMetadata: true,
  isFlowOutputSample: true,
  blurHash: true,
} as const;

/**
 * How the store serves the file through its URLs: as stored for what a browser
 * only displays; otherwise as a download of no type a browser would run, since
 * an SVG (or anything taken for a page) opened from the store's or CDN's
 * origin would run its script there.
 */
function fileServedAs(row: AssetSummaryRow): ServedAs | undefined {
  const extension = row.mediaExtension as MediaExtension;
  if (INLINE_EXTENSIONS.has(extension)) return undefined;
  return {
    contentType: 'application/octet-stream',
    contentDisposition: attachmentDisposition(displayName(row.filename, row.id, extension)),
  };
}

export async function toAssetSummary(row: AssetSummaryRow, urls: UrlSigner): Promise<AssetSummary> {
  const largeUrl = await urls.urlFor(row.storageKey, fileServedAs(row));
  // Until processing has made a preview (and for types that get none) the
  // file itself is the best thing to show. Previews are WebP images of our own.
  const url = row.previewKey ? await urls.urlFor(row.previewKey) : largeUrl;
  return {
    id: row.id,
    external_id: row.externalId,
    asset_type: row.assetType,
    media_type: row.mediaType,
    media_extension: row.mediaExtension as MediaExtension,
    visibility: row.visibility,
    bookmarked: row.bookmarked,
    archived: row.archived,
    downloaded: row.downloaded,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    url,
    large_url: largeUrl,
    agent_id: row.agentId,
    run_id: row.runId,
  };
}

export async function toAsset(row: AssetFullRow, urls: UrlSigner): Promise<Asset> {
  return {
    ...(await toAssetSummary(row, urls)),
    // The column stays null until processing has read the file; the contract says object, never null.
    asset_metadata: (row.assetMetadata as Asset['asset_metadata'] | null) ?? {},
    is_flow_output_sample: row.isFlowOutputSample,
    blur_hash: row.blurHash,
  };
}
