import type { Flow } from '@weft/contracts';
import { jsonEqual } from '@weft/dag';
import type { Db } from '@weft/db';
import { NotFoundError } from '@weft/errors';
import { versionData } from './version-data';

export interface PublishedVersion {
  version: number;
  createdAt: Date;
  /** False when the flow equals the active version's: nothing was written. */
  created: boolean;
}

/**
 * Publishes a new version of an agent of `orgId` and makes it active
 * (docs/api.md#versions). Only the owner may publish; for anyone else the agent
 * does not exist (404), whatever its visibility.
 *
 * Numbering: the agent row is locked (FOR UPDATE) for the transaction, so
 * concurrent publications of one agent queue up and get consecutive numbers;
 * the unique (agent_id, version) index backs this up.
 *
 * Idempotent: publishing exactly the active flow again returns that version
 * unchanged (`created: false`), so re-running a publisher creates nothing.
 * The caller checks the flow first, as for createAgent.
 */
export async function publishAgentVersion(
  db: Db,
  orgId: string,
  agentId: string,
  flow: Flow,
): Promise<PublishedVersion> {
  return db.prisma.$transaction(async (tx) => {
    const locked = await tx.$queryRaw<{ active_version_id: string | null }[]>`
      SELECT active_version_id FROM agents
       WHERE id = ${agentId}::uuid AND organization_id = ${orgId}::uuid
         FOR UPDATE`;
    const agent = locked[0];
    if (!agent) throw new NotFoundError('Agent');

    const latest = await tx.agentVersion.findFirst({
      where: { agentId },
      orderBy: { version: 'desc' },
      select: { id: true, version: true, flow: true, createdAt: true },
    });
    if (latest && latest.id === agent.active_version_id && jsonEqual(latest.flow, flow)) {
      return { version: latest.version, createdAt: latest.createdAt, created: false };
    }

    const version = await tx.agentVersion.create({
      data: versionData(agentId, (latest?.version ?? 0) + 1, flow),
      select: { id: true, version: true, createdAt: true },
    });
    await tx.agent.update({ where: { id: agentId }, data: { activeVersionId: version.id } });
    return { version: version.version, createdAt: version.createdAt, created: true };
  });
}
