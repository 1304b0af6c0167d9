import type { AppVisibilitySchema, FlowVisibilitySchema, z } from '@weft/contracts';
import type { Prisma, SqlValues } from '@weft/db';
import { readableBy } from '@weft/db';

// Who sees what in the catalog (docs/api.md#visibility):
//
//   visibility  get by id                  listed for
//   private     owner organization only    owner, with visibility=private (or omitted)
//   workspace   owner organization only    owner, with visibility=workspace (or omitted)   [apps only]
//   shared      anyone authenticated       owner, with visibility=shared (or omitted)
//   public      anyone authenticated       owner, when `visibility` is omitted; everyone, with visibility=public
//
// Omitting `visibility` lists the caller's own objects, whatever their
// visibility: an organization that publishes its agents still expects to find
// them in its list. Nothing of another organization is shared *with* the caller (sharing
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

/**
 * SQL condition on the agents aliased `a`: the agents `orgId` lists with
 * `scope`. Each arm alone walks an index, (organization_id, created_at, id)
 * for the caller's own and (visibility, created_at, id) for the public
 * catalog; both at once (an own visibility with `public`) scan (ADR 0027).
 */
export function agentListScope(orgId: string, scope: ListScope<FlowVisibility>, values: SqlValues): string {
  return listScope(orgId, scope, values, {
    alias: 'a',
    visibilityType: 'AgentVisibility',
    // Other organizations' public agents are listed only once they can be run.
    othersPublic: 'a.active_version_id IS NOT NULL',
  });
}

/** SQL condition on the apps aliased `p`: the apps `orgId` lists with `scope`. */
export function appListScope(orgId: string, scope: ListScope<AppVisibility>, values: SqlValues): string {
  return listScope(orgId, scope, values, { alias: 'p', visibilityType: 'AppVisibility', othersPublic: 'TRUE' });
}

interface ScopeTable {
  alias: string;
  /** The PostgreSQL enum of the visibility column. */
  visibilityType: string;
  /** What another organization's public row must also satisfy to be listed. */
  othersPublic: string;
}

function listScope(orgId: string, scope: ListScope<string>, values: SqlValues, table: ScopeTable): string {
  const { alias: t, visibilityType } = table;
  const org = values.add(orgId);
  const visibilities = (list: string[]) => `${t}.visibility = ANY(${values.add(list)}::"${visibilityType}"[])`;
  if (scope.owned || !scope.visibility) {
    return scope.visibility
      ? `${t}.organization_id = ${org} AND ${visibilities(scope.visibility)}`
      : `${t}.organization_id = ${org}`;
  }
  const own = scope.visibility.filter((v) => v !== 'public');
  const arms: string[] = [];
  if (own.length > 0) arms.push(`(${t}.organization_id = ${org} AND ${visibilities(own)})`);
  if (scope.visibility.includes('public')) {
    arms.push(`(${t}.visibility = 'public' AND (${t}.organization_id = ${org} OR ${table.othersPublic}))`);
  }
  return `(${arms.join(' OR ')})`;
}

/** Prisma condition: agents the organization may read by id. */
export function agentReadableBy(orgId: string): Prisma.AgentWhereInput {
  return readableBy(orgId);
}

/** Prisma condition: apps the organization may read by id. */
export function appReadableBy(orgId: string): Prisma.AppWhereInput {
  return readableBy(orgId);
}
