import type { Db, Prisma } from '@weft/db';
import {
  analyseImage,
  analysePdf,
  extractFrame,
  previewOf,
  probeMedia,
  RASTER_EXTENSIONS,
  UnprocessableMediaError,
  type AssetMetadata,
  type FfmpegTools,
  type MediaExtension,
} from '@weft/media';
import { assetKeys, putObject, readObject, type Storage, type UrlSigner } from '@weft/storage';

export interface AssetProcessingDeps {
  db: Db;
  storage: Storage;
  /** Presigned URLs for ffmpeg, which reads videos by range instead of downloading them. */
  urls: UrlSigner;
  ffmpeg: FfmpegTools;
  /** Largest image decoded (width × height): the decompression-bomb guard. */
  maxPixels: number;
  /** Largest image (or PDF, for its page count) read into memory to be decoded. */
  maxImageBytes: number;
}

interface Outcome {
  metadata: AssetMetadata;
  previewKey?: string;
  blurHash?: string;
}

type Row = {
  id: string;
  organizationId: string;
  mediaType: 'image' | 'video' | 'audio' | 'file';
  mediaExtension: string;
  storageKey: string;
  sizeBytes: bigint;
  assetMetadata: Prisma.JsonValue;
};

async function analyse(deps: AssetProcessingDeps, row: Row): Promise<Outcome> {
  const previewKey = assetKeys.preview(row.organizationId, row.id);
  const extension = row.mediaExtension as MediaExtension;
  if (row.mediaType === 'image' && RASTER_EXTENSIONS.has(extension)) {
    const bytes = await readObject(deps.storage, row.storageKey, deps.maxImageBytes);
    const image = await analyseImage(bytes, { maxPixels: deps.maxPixels });
    await putObject(deps.storage, previewKey, image.preview, 'image/webp');
    return { metadata: image.metadata, previewKey, blurHash: image.blurHash };
  }
  if (row.mediaType === 'video' || row.mediaType === 'audio') {
    const url = await deps.urls.urlFor(row.storageKey);
    const probe = await probeMedia(url, deps.ffmpeg);
    if (!probe.hasVideo) return { metadata: probe.metadata };
    const frame = await extractFrame(url, probe.duration, deps.ffmpeg);
    await putObject(deps.storage, previewKey, await previewOf(frame, { maxPixels: deps.maxPixels }), 'image/webp');
    return { metadata: probe.metadata, previewKey };
  }
  if (extension === 'pdf') {
    // Read whole to be parsed: up to the same bound as an image, else no page count.
    if (Number(row.sizeBytes) > deps.maxImageBytes) return { metadata: {} };
    return { metadata: await analysePdf(await readObject(deps.storage, row.storageKey, deps.maxImageBytes)) };
  }
  // SVG (rasterising untrusted SVG is not worth its risk here), other documents, fonts, text.
  return { metadata: {} };
}

function existingMetadata(value: Prisma.JsonValue): AssetMetadata {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as AssetMetadata) : {};
}

export interface Attempt {
  /** No retry follows this attempt: a failure is final. */
  final: boolean;
}

/**
 * Thumbnail or video still, technical metadata and (for images) a blur hash.
 * Idempotent: a deleted or already processed asset is left alone, and the
 * outputs are overwritten, not added. A failure is written to the row
 * (processing_error, and processing_status 'failed' once no retry follows)
 * and rethrown; UnprocessableMediaError means a retry cannot help. The asset
 * stays usable either way: its url falls back to the file itself.
 */
export async function processAsset(deps: AssetProcessingDeps, assetId: string, attempt: Attempt): Promise<void> {
  const row = await deps.db.prisma.asset.findUnique({
    where: { id: assetId },
    select: {
      id: true,
      organizationId: true,
      mediaType: true,
      mediaExtension: true,
      storageKey: true,
      sizeBytes: true,
      assetMetadata: true,
      deletedAt: true,
      processingStatus: true,
    },
  });
  if (!row || row.deletedAt || row.processingStatus === 'succeeded') return;
  await deps.db.prisma.asset.update({ where: { id: assetId }, data: { processingAttempts: { increment: 1 } } });

  // What the producer of the asset recorded (a node's model, ratio) is kept over what is measured.
  const base: AssetMetadata = { size_bytes: Number(row.sizeBytes), ...existingMetadata(row.assetMetadata) };
  try {
    const outcome = await analyse(deps, row);
    await deps.db.prisma.asset.update({
      where: { id: assetId },
      data: {
        processingStatus: 'succeeded',
        processingError: null,
        processedAt: new Date(),
        assetMetadata: { ...outcome.metadata, ...base },
        ...(outcome.previewKey ? { previewKey: outcome.previewKey } : {}),
        ...(outcome.blurHash ? { blurHash: outcome.blurHash } : {}),
      },
    });
  } catch (err) {
    const final = attempt.final || err instanceof UnprocessableMediaError;
    await deps.db.prisma.asset.update({
      where: { id: assetId },
      data: {
        processingError: (err instanceof Error ? err.message : String(err)).slice(0, 2000),
        ...(final ? { processingStatus: 'failed', processedAt: new Date(), assetMetadata: base } : {}),
      },
    });
    throw err;
  }
}
