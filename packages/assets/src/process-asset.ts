import type { Db, Prisma } from '@weft/db';
import {
  analyseImage,
  analysePdf,
  extractCover,
  extractFrame,
  previewOf,
  probeMedia,
  RASTER_EXTENSIONS,
  redactUrls,
  UnprocessableMediaError,
  type AssetMetadata,
  type FfmpegTools,
  type MediaExtension,
} from '@weft/media';
import {
  assetKeys,
  isInvalidRange,
  ObjectTooLargeError,
  openObject,
  putObject,
  readObject,
  type Storage,
  type UrlSigner,
} from '@weft/storage';

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

/**
 * Whether the store serves the object, asked before ffmpeg is: its errors
 * come typed from @weft/storage (unreachable, 5xx, missing: all retried),
 * where ffmpeg's would be text.
 */
async function checkReadable(storage: Storage, key: string): Promise<void> {
  try {
    const { body, contentLength } = await openObject(storage, key, 'bytes=0-0');
    body.destroy();
    // S3 answers 416 for a range of an empty object; some stores send it whole.
    if (contentLength === 0) throw new UnprocessableMediaError('The file is empty');
  } catch (err) {
    if (isInvalidRange(err)) throw new UnprocessableMediaError('The file is empty');
    throw err;
  }
}

/** The whole object, or UnprocessableMediaError when it is over `maxBytes`: its size will not change. */
async function readWhole(deps: AssetProcessingDeps, key: string, what: string): Promise<Buffer> {
  try {
    return await readObject(deps.storage, key, deps.maxImageBytes);
  } catch (err) {
    if (!(err instanceof ObjectTooLargeError)) throw err;
    throw new UnprocessableMediaError(
      `The ${what} has ${err.sizeBytes} bytes, more than the ${err.maxBytes} read for processing (ASSET_MAX_IMAGE_BYTES)`,
    );
  }
}

/**
 * `measured` collects metadata as it is measured, so that a later step's
 * failure (the still, the preview upload) does not lose what the probe found.
 */
async function analyse(deps: AssetProcessingDeps, row: Row, measured: Outcome): Promise<Outcome> {
  const previewKey = assetKeys.preview(row.organizationId, row.id);
  const extension = row.mediaExtension as MediaExtension;
  if (row.mediaType === 'image' && RASTER_EXTENSIONS.has(extension)) {
    const bytes = await readWhole(deps, row.storageKey, 'image');
    const image = await analyseImage(bytes, { maxPixels: deps.maxPixels });
    measured.metadata = image.metadata;
    await putObject(deps.storage, previewKey, image.preview, 'image/webp');
    return { metadata: image.metadata, previewKey, blurHash: image.blurHash };
  }
  if (row.mediaType === 'video' || row.mediaType === 'audio') {
    await checkReadable(deps.storage, row.storageKey);
    const url = await deps.urls.urlFor(row.storageKey);
    const probe = await probeMedia(url, deps.ffmpeg);
    measured.metadata = probe.metadata;
    let still: Buffer;
    if (probe.videoStream !== undefined) still = await extractFrame(url, probe, deps.ffmpeg);
    else if (probe.coverStream !== undefined) {
      // Cover art is a nicety: a song whose picture cannot be decoded is still a song.
      const cover = await extractCover(url, probe, deps.ffmpeg).catch((err: unknown) => {
        if (err instanceof UnprocessableMediaError) return undefined;
        throw err;
      });
      if (!cover) return { metadata: probe.metadata };
      still = cover;
    } else return { metadata: probe.metadata };
    await putObject(deps.storage, previewKey, await previewOf(still, { maxPixels: deps.maxPixels }), 'image/webp');
    return { metadata: probe.metadata, previewKey };
  }
  if (extension === 'pdf') {
    // Read whole to be parsed: up to the same bound as an image, else no page count.
    if (Number(row.sizeBytes) > deps.maxImageBytes) return { metadata: {} };
    const bytes = await readObject(deps.storage, row.storageKey, deps.maxImageBytes).catch((err: unknown) => {
      if (err instanceof ObjectTooLargeError) return undefined;
      throw err;
    });
    return { metadata: bytes ? await analysePdf(bytes) : {} };
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
  const measured: Outcome = { metadata: {} };
  try {
    const outcome = await analyse(deps, row, measured);
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
        // Presigned URLs in the text (ffmpeg names its input) would hand out read access.
        processingError: redactUrls(err instanceof Error ? err.message : String(err)).slice(0, 2000),
        ...(final
          ? { processingStatus: 'failed', processedAt: new Date(), assetMetadata: { ...measured.metadata, ...base } }
          : {}),
      },
    });
    throw err;
  }
}
