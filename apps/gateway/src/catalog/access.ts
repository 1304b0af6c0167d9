import type { AppVisibilitySchema, FlowVisibilitySchema, z } from '@weft/contracts';
import type { Prisma } from '@weft/db';

// Who sees what in the catalog (interface.md 4.1, extensions.md 3):
//
//   visibility  get by id                  listed for
//   private     owner organization only    owner, with visibility=private (or omitted)
//   workspace   owner organization only    owner, with visibility=workspace (or omitted)   [apps only]
//   shared      anyone authenticated       owner, with visibility=shared (or omitted)
//   public      anyone authenticated       owner, when `visibility` is omitted; everyone, with visibility=public
//
// Omitting `visibility` lists the caller's own objects, whatever their
// visibility: interface.md's PRIVATE is "the organization's own agents", and
// an organization that publishes its agents still expects to find them in its
// list. Nothing of another organization is shared *with* the caller (sharing
// is by id, like a link), so the default holds only the caller's own objects.
// `visibility=public` is the catalog of every organization. `owned=true`
// (extension) lists the caller's own objects of every visibility, or of the
// given ones. Objects of other organizations that may not be read are
// reported exactly like missing ones.

type FlowVisibility = z.infer<typeof FlowVisibilitySchema>;
type AppVisibility = z.infer<typeof AppVisibilitySchema>;

export interface ListScope<V extends string> {
  visibility?: V[];
  owned: boolean;
}

/** Visibilities of other organizations' objects that may be read by id. */
export const READABLE_BY_OTHERS = { agent: ['shared', 'public'], app: ['shared', 'public'] } as const;

export function agentListScope(orgId: string, scope: ListScope<FlowVisibility>): Prisma.AgentWhereInput {
  if (scope.owned || !scope.visibility) {
    return { organizationId: orgId, ...(scope.visibility ? { visibility: { in: scope.visibility } } : {}) };
  }
  const wanted = scope.visibility;
  const own = wanted.filter((v) => v !== 'public');
  const or: Prisma.AgentWhereInput[] = [];
  if (own.length > 0) or.push({ organizationId: orgId, visibility: { in: own } });
  // Other organizations' public agents are listed only once they can be run.
  if (wanted.includes('public')) {
    or.push({ visibility: 'public', OR: [{ organizationId: orgId }, { activeVersionId: { not: null } }] });
  }
  return { OR: or };
}

export function appListScope(orgId: string, scope: ListScope<AppVisibility>): Prisma.AppWhereInput {
  if (scope.owned || !scope.visibility) {
    return { organizationId: orgId, ...(scope.visibility ? { visibility: { in: scope.visibility } } : {}) };
  }
  const wanted = scope.visibility;
  const own = wanted.filter((v) => v !== 'public');
  const or: Prisma.AppWhereInput[] = [];
  if (own.length > 0) or.push({ organizationId: orgId, visibility: { in: own } });
  if (wanted.includes('public')) or.push({ visibility: 'public' });
  return { OR: or };
}

/** Prisma condition: agents the organization may read by id. */
export function agentReadableBy(orgId: string): Prisma.AgentWhereInput {
  return { OR: [{ organizationId: orgId }, { visibility: { in: [...READABLE_BY_OTHERS.agent] } }] };
}

/** Prisma condition: apps the organization may read by id. */
export function appReadableBy(orgId: string): Prisma.AppWhereInput {
  return { OR: [{ organizationId: orgId }, { visibility: { in: [...READABLE_BY_OTHERS.app] } }] };
}
