import { NodeFailure, UnreadableAsset, type AssetInfo, type NodeContext, type StoredAsset } from './types';

// The assets a node was given, read so that a missing one is reported
// against the node and the port that named it.

async function at<T>(ctx: NodeContext, port: string, assetId: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof UnreadableAsset) {
      throw new NodeFailure(
        'invalid_input',
        `Node '${ctx.nodeId}': asset ${assetId} at input '${port}' does not exist or is not readable`,
      );
    }
    throw err;
  }
}

export function infoAt(ctx: NodeContext, port: string, assetId: string): Promise<AssetInfo> {
  return at(ctx, port, assetId, () => ctx.assets.info(assetId, ctx.signal));
}

export function readAt(ctx: NodeContext, port: string, assetId: string): Promise<StoredAsset> {
  return at(ctx, port, assetId, () => ctx.assets.read(assetId, ctx.signal));
}
