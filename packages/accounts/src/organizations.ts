import type { Db } from '@weft/db';
import { issueApiKey, retryOnPrefixCollision } from './api-keys';

export interface CreatedOrganization {
  id: string;
  name: string;
  credits: number;
  apiKey: string;
}

/**
 * Creates an organization with its first API key. The starting balance is a
 * ledger line like any other grant, so that the ledger always sums to the balance.
 */
export async function createOrganization(db: Db, name: string, credits: number): Promise<CreatedOrganization> {
  return retryOnPrefixCollision(() =>
    db.prisma.$transaction(async (tx) => {
      const org = await tx.organization.create({
        data: { name, credits },
        select: { id: true, name: true, credits: true },
      });
      if (credits !== 0) {
        await tx.creditLedgerEntry.create({
          data: { organizationId: org.id, kind: 'grant', amount: credits, note: 'initial credits' },
        });
      }
      const key = await issueApiKey(tx, org.id, 'default');
      return { ...org, apiKey: key.apiKey };
    }),
  );
}

export async function organizationExists(db: Db, id: string): Promise<boolean> {
  return (await db.prisma.organization.count({ where: { id } })) > 0;
}
