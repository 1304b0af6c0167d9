// @weft/assets: the one owner of the `assets` table. Uploads recorded, assets
// read, listed and deleted for the API, a node's reads and writes of assets,
// the processing of a stored file (preview, metadata) and the sweep of the
// ones left unprocessed, and the SQL other statements compose (a run's
// outputs marked in the engine's commit). The HTTP around them (multipart,
// ranges, headers) and the queues' workers stay in the apps.
export { getAsset } from './get-asset';
export { listAssets, type ListAssetsInput } from './list-assets';
export { deleteAsset, type DeleteOutcome } from './delete-asset';
export { recordUpload, type Upload } from './record-upload';
export { loadAssetFile, markAssetDownloaded, type AssetFile } from './asset-file';
export { toAsset, type AssetFullRow } from './to-asset';
export { attachmentDisposition, displayName, sanitizeFilename } from './filename';
export { readInputAssets, type InputAssetRow } from './input-assets';
export { readReviewedAssets } from './review-assets';
export { markOutputAssetsCte, type OutputAssetsCteNames } from './output-assets-sql';
export { nodeAssets, type NodeAssetsDeps, type NodeScope } from './node-assets';
export { processAsset, type AssetProcessingDeps, type Attempt } from './process-asset';
export { findUnprocessedAssets } from './sweep';
