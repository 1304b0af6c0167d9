import type { NodeType } from '@weft/contracts';
import type { ProviderJobRef } from '@weft/nodes';
import type { Capability } from './capability';
import type { ProviderCredential } from './credentials';

/** How an adapter's SDK reaches the network: the process's fetch, or one under the outbound rules. */
export type Fetch = typeof globalThis.fetch;

/**
 * A provider protocol: the node types it serves, and how to make a client of
 * its SDK for a credential. The routes make one client per credential and
 * keep it (the deployment's for the life of the process).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export interface ProviderAdapter<C = any> {
  provider: string;
  /** The setting an operator sets to enable it, named in provider_auth_required failures. */
  credential: string;
  /** The deployment's credential, from the environment; undefined when not set. */
  deployment: ProviderCredential | undefined;
  /**
   * The operator's base URL for this provider (`<PROVIDER>_BASE_URL`): an
   * organization's credential without a base URL of its own goes there too.
   */
  defaultBaseURL?: string | undefined;
  /**
   * A client of the provider's SDK. `fetch` is given for credentials whose base
   * URL an organization chose: the SDK must send every request through it.
   */
  connect(credential: ProviderCredential, fetch: Fetch | undefined): C;
  /** A cheap call that fails when the provider refuses the credential (POST /credentials checks it). */
  verify(client: C, signal: AbortSignal): Promise<void>;
  /** The types it serves, each with its default model. */
  capabilities: Partial<Record<NodeType, Capability<C>>>;
  /**
   * Cancels a job of this provider that a node attempt submitted (provider_jobs)
   * and no one follows any more: resolves once the provider took the cancel or
   * said there is nothing left to cancel (job-cancels.ts `nothingToCancel`),
   * throws otherwise. Absent where the provider's jobs cannot be cancelled.
   */
  cancelJob?(client: C, job: ProviderJobRef, signal: AbortSignal): Promise<void>;
}

/** The settings of one provider in the environment: `<PROVIDER>_API_KEY` and `<PROVIDER>_BASE_URL`, or alike. */
export interface EndpointSettings {
  apiKey?: string | undefined;
  baseURL?: string | undefined;
}

/** The deployment credential of `settings`, or undefined when its key is not set. */
export function deploymentCredential(setting: string, settings: EndpointSettings): ProviderCredential | undefined {
  if (!settings.apiKey) return undefined;
  return {
    secret: settings.apiKey,
    ...(settings.baseURL ? { baseURL: settings.baseURL } : {}),
    origin: { kind: 'deployment', setting },
  };
}
