import { getAsset, listAssets } from '@weft/assets';
import {
  AssetPageSchema,
  AssetSchema,
  DownloadAssetQuery,
  ErrorBody,
  ListAssetsQuery,
  UploadAssetForm,
  IdParam,
  z,
} from '@weft/contracts';
import { deleteAsset } from '../../assets/delete-asset';
import { downloadAsset } from '../../assets/download-asset';
import { uploadAsset } from '../../assets/upload-asset';
import { clientGoneSignal } from '../../http/client-gone';
import { defineRoute, type AnyRoute } from '../../http/define-route';
import { sendStream } from '../../http/send-stream';

const AssetPath = z.object({ asset_id: IdParam });

export const listAssetsRoute = defineRoute({
  method: 'get',
  path: '/assets',
  summary: "List the caller organization's assets",
  tags: ['assets'],
  auth: 'api',
  request: { query: ListAssetsQuery },
  responses: {
    200: { description: 'A page of assets, newest first; filters combine with AND', schema: AssetPageSchema },
  },
  handler: async ({ deps, auth, query }) => ({
    status: 200,
    body: await listAssets(deps.db, deps.assetUrls, auth.organizationId, query),
  }),
});

export const uploadAssetRoute = defineRoute({
  method: 'post',
  path: '/assets/upload',
  summary: 'Upload a file (streamed to storage; processed in the background)',
  tags: ['assets'],
  auth: 'api',
  rateLimit: 'upload',
  request: { form: UploadAssetForm },
  responses: {
    200: { description: 'The asset, usable at once', schema: AssetSchema },
    400: { description: 'Unsupported or unreadable file type, or a name contradicting the content', schema: ErrorBody },
    409: { description: 'external_id already used for an upload; existing_id names the asset', schema: ErrorBody },
    413: { description: 'The file is larger than ASSET_MAX_UPLOAD_BYTES (default 100 MiB)', schema: ErrorBody },
    503: {
      description: 'Storage temporarily unavailable, or too many uploads in progress on the instance: see Retry-After',
      schema: ErrorBody,
    },
  },
  handler: async ({ deps, auth, req, res }) => ({
    status: 200,
    body: await uploadAsset(deps, auth.organizationId, req, res),
  }),
});

export const getAssetRoute = defineRoute({
  method: 'get',
  path: '/assets/:asset_id',
  summary: 'Get an asset',
  tags: ['assets'],
  auth: 'api',
  request: { params: AssetPath },
  responses: {
    200: { description: 'The asset', schema: AssetSchema },
    404: { description: 'Not found, deleted, or not accessible', schema: ErrorBody },
  },
  handler: async ({ deps, auth, params }) => ({
    status: 200,
    body: await getAsset(deps.db, deps.assetUrls, auth.organizationId, params.asset_id),
  }),
});

export const downloadAssetRoute = defineRoute({
  method: 'get',
  path: '/assets/:asset_id/download',
  summary: 'Download the file (streamed; supports Range)',
  tags: ['assets'],
  auth: 'api',
  request: { params: AssetPath, query: DownloadAssetQuery },
  responses: {
    200: { description: 'The file, as an attachment', contentType: 'application/octet-stream' },
    206: { description: 'The requested byte range', contentType: 'application/octet-stream' },
    400: { description: 'svg=true on something other than a raster image', schema: ErrorBody },
    404: { description: 'Not found or not accessible', schema: ErrorBody },
    410: { description: 'Deleted, or the file is no longer available', schema: ErrorBody },
    416: { description: 'The range lies outside the file', schema: ErrorBody },
    503: {
      description: 'Storage temporarily unavailable, or (svg=true) the converter busy: see Retry-After',
      schema: ErrorBody,
    },
  },
  handler: async ({ deps, auth, params, query, req, res }) => {
    const download = await downloadAsset(
      deps.assetFiles,
      deps.storage,
      { maxTraceBytes: deps.config.ASSET_MAX_UPLOAD_BYTES, maxPixels: deps.config.ASSET_MAX_IMAGE_PIXELS },
      {
        organizationId: auth.organizationId,
        assetId: params.asset_id,
        svg: query.svg,
        ...(req.headers.range ? { range: req.headers.range } : {}),
        ...(typeof req.headers['if-range'] === 'string' ? { ifRange: req.headers['if-range'] } : {}),
        head: req.method === 'HEAD',
        // Only a conversion has work to stop; a plain download stops with its stream.
        ...(query.svg ? { signal: clientGoneSignal(res) } : {}),
      },
      (err) => req.log.warn({ err }, 'could not mark the asset downloaded'),
    );
    res.status(download.status);
    for (const [name, value] of Object.entries(download.headers)) res.setHeader(name, value);
    const body = download.body;
    if (body === undefined || typeof body === 'string') {
      res.end(body);
      return undefined;
    }
    await sendStream(body, res, deps.config.ASSET_DOWNLOAD_STALL_MS, (err) =>
      req.log.info({ err }, 'download given up: the client stopped reading'),
    );
    return undefined;
  },
});

export const deleteAssetRoute = defineRoute({
  method: 'delete',
  path: '/assets/:asset_id',
  summary: 'Delete an asset (soft: the file is kept, listing and download stop)',
  tags: ['assets'],
  auth: 'api',
  request: { params: AssetPath },
  responses: {
    204: { description: 'Deleted' },
    404: { description: 'Not found, or owned by another organization (even if public)', schema: ErrorBody },
    410: { description: 'Already deleted', schema: ErrorBody },
  },
  handler: async ({ deps, auth, params, req }) => {
    await deleteAsset(deps.db, deps.assetFiles, auth.organizationId, params.asset_id, (err) =>
      req.log.warn({ err }, 'could not broadcast the asset deletion'),
    );
    return { status: 204 };
  },
});

export const assetRoutes = [
  listAssetsRoute,
  uploadAssetRoute,
  getAssetRoute,
  downloadAssetRoute,
  deleteAssetRoute,
] as AnyRoute[];
