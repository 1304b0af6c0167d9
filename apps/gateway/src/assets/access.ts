import type { Prisma } from '@weft/db';
import { readableBy } from '@weft/db';

// Who may do what with an asset (docs/api.md#assets); download-asset.ts states
// the same read rule in SQL:
//   get, download   the owner organization, or anyone when visibility is public or shared
//   list, delete    the owner organization only (others get 404, even for public assets)
// Deleted assets are never listed; get answers 404 for them and download 410.

export function assetReadableBy(organizationId: string): Prisma.AssetWhereInput {
  return readableBy(organizationId);
}
