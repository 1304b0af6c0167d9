import type { RouteEntry } from './route-table';

/** A provider credential: the deployment's (from the environment) or an organization's (POST /credentials). */
export interface ProviderCredential {
  /** The key or token. */
  secret: string;
  /** Another server speaking the provider's protocol. */
  baseURL?: string;
  /** What else the provider needs that is not secret (S3: endpoint, region, bucket, access key id). */
  settings?: Record<string, string | boolean>;
  /** Where it comes from: the deployment's, or an organization's stored credential (its id). */
  origin: { kind: 'deployment'; setting: string } | { kind: 'organization'; id: string };
}

/**
 * The credentials organizations stored, as the routes read them: the composition
 * root backs it with PostgreSQL and CREDENTIALS_KEY. Absent, only the
 * deployment's credentials serve.
 */
export interface OrganizationCredentials {
  /** The organization's newest credential for `provider`, if it stored one. */
  forProvider(organizationId: string, provider: string): Promise<ProviderCredential | undefined>;
  /** The organization's credential `id` (another organization's is undefined, like a missing one). */
  byId(organizationId: string, id: string): Promise<(ProviderCredential & { provider: string }) | undefined>;
  /** The routes the organization chose over NODE_ROUTES (PUT /node-routes/{type}), by type. */
  chosenRoutes(organizationId: string): Promise<ReadonlyMap<string, RouteEntry>>;
}
