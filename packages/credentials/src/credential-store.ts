import type { OrganizationCredentials, ProviderCredential, RouteEntry } from '@weft/providers';
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
    /** CREDENTIALS_KEY: without it, credentials cannot be stored or opened (routes still can). */
    private readonly keyring: Keyring | undefined,
  ) {}

  /** Whether this process can seal and open secrets (CREDENTIALS_KEY is set). */
  get sealing(): boolean {
    return this.keyring !== undefined;
  }

  private ring(): Keyring {
    if (!this.keyring) throw new Error('CREDENTIALS_KEY is not set');
    return this.keyring;
  }

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
    const { keyVersion, sealed } = this.ring().seal(input.secret, context(organizationId, id));
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
    // Without the key nothing stored can be opened: the deployment's credentials serve.
    if (!this.keyring) return undefined;
    const { rows } = await this.pool.query<Row>({
      name: 'credentials_for_provider_v1',
      text: `SELECT ${COLUMNS} FROM provider_credentials WHERE organization_id = $1 AND provider = $2
              ORDER BY created_at DESC, id DESC LIMIT 1`,
      values: [organizationId, provider],
    });
    return rows[0] && this.opened(rows[0]);
  }

  async byId(organizationId: string, id: string): Promise<(ProviderCredential & { provider: string }) | undefined> {
    if (!this.keyring) return undefined;
    const row = await this.row(organizationId, id);
    return row && { ...this.opened(row), provider: row.provider };
  }

  async chosenRoutes(organizationId: string): Promise<ReadonlyMap<string, RouteEntry>> {
    const { rows } = await this.pool.query<{ node_type: string; provider: string; model: string | null }>({
      name: 'credentials_chosen_routes_v1',
      text: 'SELECT node_type, provider, model FROM organization_node_routes WHERE organization_id = $1',
      values: [organizationId],
    });
    return new Map(
      rows.map((r) => [r.node_type, r.model ? { provider: r.provider, model: r.model } : { provider: r.provider }]),
    );
  }

  /** Sets the organization's route of `type` (the caller checked the provider serves it). */
  async chooseRoute(organizationId: string, type: string, route: RouteEntry): Promise<void> {
    await this.pool.query(
      `INSERT INTO organization_node_routes (organization_id, node_type, provider, model) VALUES ($1, $2, $3, $4)
       ON CONFLICT (organization_id, node_type) DO UPDATE SET provider = $3, model = $4, updated_at = now()`,
      [organizationId, type, route.provider, route.model ?? null],
    );
  }

  /** True when the organization had chosen a route for `type`. */
  async forgetRoute(organizationId: string, type: string): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      'DELETE FROM organization_node_routes WHERE organization_id = $1 AND node_type = $2',
      [organizationId, type],
    );
    return (rowCount ?? 0) > 0;
  }

  /** Seals every credential of an old key version under the current one; returns how many it re-sealed. */
  async reseal(): Promise<number> {
    const { rows } = await this.pool.query<Row>(`SELECT ${COLUMNS} FROM provider_credentials WHERE key_version <> $1`, [
      this.ring().current,
    ]);
    for (const row of rows) {
      const ctx = context(row.organization_id, row.id);
      const secret = this.ring().open({ keyVersion: row.key_version, sealed: row.sealed }, ctx);
      const { keyVersion, sealed } = this.ring().seal(secret, ctx);
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
      secret: this.ring().open(
        { keyVersion: row.key_version, sealed: row.sealed },
        context(row.organization_id, row.id),
      ),
      ...(row.base_url ? { baseURL: row.base_url } : {}),
      ...(row.settings ? { settings: row.settings } : {}),
      origin: { kind: 'organization', id: row.id },
    };
  }
}

/** The store of a process whose CREDENTIALS_KEY is `key` (unset: routes only, no secrets). */
export function credentialStoreFor(pool: Pool, key: string | undefined): CredentialStore {
  return new CredentialStore(pool, key ? parseKeyring(key) : undefined);
}
