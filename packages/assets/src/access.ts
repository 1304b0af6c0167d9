import type { Prisma } from '@weft/db';
import { readableBy } from '@weft/db';

// Who may do what with an asset (docs/api.md#assets); the reads in SQL state
// the same read rule with readableBySql, the gateway's download cache with isReadableBy:
//   get, download   the owner organization, or anyone when visibility is public or shared
//   list, delete    the owner organization only (others get 404, even for public assets)
// Deleted assets are never listed; get answers 404 for them and download 410.

export function assetReadableBy(organizationId: string): Prisma.AssetWhereInput {
  return readableBy(organizationId);
}
