import type { NodeType } from '@weft/contracts';
import type { Capability } from './capability';

/** A provider as the routes see it: what it serves, and the setting that gives it credentials. */
export interface ProviderAdapter {
  provider: string;
  /** The setting an operator sets to enable it, named in provider_auth_required failures. */
  credential: string;
  configured: boolean;
  /** The types it serves when configured. */
  capabilities: Partial<Record<NodeType, Capability>>;
  /** The types it can serve and their default models, configured or not (for the failure messages and docs). */
  defaultModels: Partial<Record<NodeType, string>>;
}
