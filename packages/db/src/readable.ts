// The one rule for reading another organization's agents, apps and assets by
// id: the owner reads its own, anyone authenticated reads what is `public` or
// `shared` (sharing is by id, like a link). Everything else answers exactly
// like a missing object. It is written here once, in the three forms callers
// need: a Prisma condition, a SQL condition and a check of a row in hand.

/** Visibilities with which another organization's object may be read by id. */
export const READABLE_BY_OTHERS = ['public', 'shared'] as const;

/** Prisma condition on agents, apps or assets: the ones `organizationId` may read by id. */
export function readableBy(organizationId: string) {
  return { OR: [{ organizationId }, { visibility: { in: [...READABLE_BY_OTHERS] } }] };
}

/**
 * SQL condition on a table with `organization_id` and `visibility` (aliased
 * `alias` when given): the rows the organization in parameter `orgParam` may
 * read by id.
 */
export function readableBySql(orgParam: string, alias?: string): string {
  const t = alias ? `${alias}.` : '';
  return `(${t}organization_id = ${orgParam} OR ${t}visibility IN ('public', 'shared'))`;
}

/** Whether `organizationId` may read a row it already holds. */
export function isReadableBy(row: { organizationId: string; visibility: string }, organizationId: string): boolean {
  return row.organizationId === organizationId || (READABLE_BY_OTHERS as readonly string[]).includes(row.visibility);
}
