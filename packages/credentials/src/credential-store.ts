import type { OrganizationCredentials, ProviderCredential } from '@weft/providers';
import type { Pool } from 'pg';
import { v7 as uuidv7 } from 'uuid';
import { parseKeyring, type Keyring } from './keyring';

/** A stored credential as the API shows it: never the secret, only its last four characters. */
export interface CredentialRecord {
  id: string;
  provider: string;
  name: string | null;
  base_url: string | null;
  settings: Record<string, string | boolean> | null;
  last4: string;
  created_at: string;
}

export interface NewCredential {
  provider: string;
  name?: string | undefined;
  secret: string;
  baseURL?: string | undefined;
  settings?: Record<string, string | boolean> | undefined;
}

interface Row {
  id: string;
  organization_id: string;
  provider: string;
  name: string | null;
  base_url: string | null;
  settings: Record<string, string | boolean> | null;
  key_version: number;
  sealed: Buffer;
  last4: string;
  created_at: Date;
}

const COLUMNS = 'id, organization_id, provider, name, base_url, settings, key_version, sealed, last4, created_at';

/** The secret is bound to its row: a sealed value copied to another row or organization does not open. */
const context = (organizationId: string, id: string) => `${organizationId}/${id}`;

const record = (row: Row): CredentialRecord => ({
  id: row.id,
  provider: row.provider,
  name: row.name,
  base_url: row.base_url,
  settings: row.settings,
  last4: row.last4,
  created_at: row.created_at.toISOString(),
});

/**
 * Organizations' provider credentials in PostgreSQL, sealed under the
 * keyring. Every query names the organization: another organization's
 * credential is read exactly like a missing one.
 */
export class CredentialStore implements OrganizationCredentials {
  constructor(
    private readonly pool: Pool,
    private readonly keyring: Keyring,
  ) {}

  /** The id a new credential will have: known before it is stored, so the secret can be checked and sealed to it. */
  newId(): string {
    return uuidv7();
  }

  /** The credential as adapters use it, before it is stored (to check it with the provider). */
  unsaved(id: string, input: NewCredential): ProviderCredential {
    return {
      secret: input.secret,
      ...(input.baseURL ? { baseURL: input.baseURL } : {}),
      ...(input.settings ? { settings: input.settings } : {}),
      origin: { kind: 'organization', id },
    };
  }

  async create(organizationId: string, id: string, input: NewCredential): Promise<CredentialRecord> {
    const { keyVersion, sealed } = this.keyring.seal(input.secret, context(organizationId, id));
    const { rows } = await this.pool.query<Row>(
      `INSERT INTO provider_credentials (id, organization_id, provider, name, base_url, settings, key_version, sealed, last4)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING ${COLUMNS}`,
      [
        id,
        organizationId,
        input.provider,
        input.name ?? null,
        input.baseURL ?? null,
        input.settings ?? null,
        keyVersion,
        sealed,
        input.secret.slice(-4),
      ],
    );
    return record(rows[0]!);
  }

  async list(organizationId: string): Promise<CredentialRecord[]> {
    const { rows } = await this.pool.query<Row>(
      `SELECT ${COLUMNS} FROM provider_credentials WHERE organization_id = $1 ORDER BY created_at DESC, id DESC`,
      [organizationId],
    );
    return rows.map(record);
  }

  async get(organizationId: string, id: string): Promise<CredentialRecord | undefined> {
    const row = await this.row(organizationId, id);
    return row && record(row);
  }

  /** True when the organization had it. */
  async delete(organizationId: string, id: string): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      'DELETE FROM provider_credentials WHERE id = $1 AND organization_id = $2',
      [id, organizationId],
    );
    return (rowCount ?? 0) > 0;
  }

  async forProvider(organizationId: string, provider: string): Promise<ProviderCredential | undefined> {
    const { rows } = await this.pool.query<Row>({
      name: 'credentials_for_provider_v1',
      text: `SELECT ${COLUMNS} FROM provider_credentials WHERE organization_id = $1 AND provider = $2
              ORDER BY created_at DESC, id DESC LIMIT 1`,
      values: [organizationId, provider],
    });
    return rows[0] && this.opened(rows[0]);
  }

  async byId(organizationId: string, id: string): Promise<(ProviderCredential & { provider: string }) | undefined> {
    const row = await this.row(organizationId, id);
    return row && { ...this.opened(row), provider: row.provider };
  }

  /** Seals every credential of an old key version under the current one; returns how many it re-sealed. */
  async reseal(): Promise<number> {
    const { rows } = await this.pool.query<Row>(`SELECT ${COLUMNS} FROM provider_credentials WHERE key_version <> $1`, [
      this.keyring.current,
    ]);
    for (const row of rows) {
      const ctx = context(row.organization_id, row.id);
      const secret = this.keyring.open({ keyVersion: row.key_version, sealed: row.sealed }, ctx);
      const { keyVersion, sealed } = this.keyring.seal(secret, ctx);
      await this.pool.query(
        'UPDATE provider_credentials SET key_version = $2, sealed = $3 WHERE id = $1 AND key_version = $4',
        [row.id, keyVersion, sealed, row.key_version],
      );
    }
    return rows.length;
  }

  private async row(organizationId: string, id: string): Promise<Row | undefined> {
    const { rows } = await this.pool.query<Row>(
      `SELECT ${COLUMNS} FROM provider_credentials WHERE id = $1 AND organization_id = $2`,
      [id, organizationId],
    );
    return rows[0];
  }

  private opened(row: Row): ProviderCredential {
    return {
      secret: this.keyring.open(
        { keyVersion: row.key_version, sealed: row.sealed },
        context(row.organization_id, row.id),
      ),
      ...(row.base_url ? { baseURL: row.base_url } : {}),
      ...(row.settings ? { settings: row.settings } : {}),
      origin: { kind: 'organization', id: row.id },
    };
  }
}

/** The store of a process whose CREDENTIALS_KEY is `key`; undefined when it is unset. */
export function credentialStoreFor(pool: Pool, key: string | undefined): CredentialStore | undefined {
  return key ? new CredentialStore(pool, parseKeyring(key)) : undefined;
}
