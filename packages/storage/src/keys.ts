// Object key layout. Keys are built from ids only, never from a file name a
// client sent, so no upload can choose or collide with another object's key.
//
//   orgs/<organization id>/assets/<asset id>/original      the bytes as uploaded
//   orgs/<organization id>/assets/<asset id>/preview.webp  thumbnail / video still

export const assetKeys = {
  original: (organizationId: string, assetId: string) => `orgs/${organizationId}/assets/${assetId}/original`,
  preview: (organizationId: string, assetId: string) => `orgs/${organizationId}/assets/${assetId}/preview.webp`,
};
