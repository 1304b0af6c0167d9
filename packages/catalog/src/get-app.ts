import type { App } from '@weft/contracts';
import type { Db } from '@weft/db';
import { NotFoundError } from '@weft/errors';
import { appReadableBy } from './access';
import { toApp } from './mappers';

/** 404 when missing or not readable by `orgId` (private and workspace apps of other organizations). */
export async function getApp(db: Db, orgId: string, appId: string): Promise<App> {
  const app = await db.prisma.app.findFirst({ where: { AND: [{ id: appId }, appReadableBy(orgId)] } });
  if (!app) throw new NotFoundError('App');
  return toApp(app);
}
