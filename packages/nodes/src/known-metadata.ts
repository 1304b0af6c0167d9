import type { AssetMetadata, MetadataValue } from '@weft/media';

/** Metadata of a result: the known values only (the asset job fills the rest). */
export function knownMetadata(values: Record<string, MetadataValue | undefined>): AssetMetadata {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined && v !== null)) as AssetMetadata;
}
