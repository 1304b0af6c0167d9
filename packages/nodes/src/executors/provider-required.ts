import type { NodeType } from '@weft/contracts';
import { NodeFailure, type NodeExecutor } from '../types';
import { PROVIDER_MAX_TIMEOUT_MS } from '../timeouts';

/** The setting that will select a provider adapter for `type` (e.g. PROVIDER_IMAGE_GENERATION). */
export function providerSetting(type: NodeType): string {
  return `PROVIDER_${type.toUpperCase()}`;
}

/**
 * Node types executed by provider adapters (OpenAI-compatible, Replicate, ...).
 * With no provider configured the run fails with provider_auth_required and
 * names the setting to configure (extensions.md 5).
 */
export function providerRequired(type: NodeType): NodeExecutor {
  return {
    type,
    kind: 'light',
    defaultTimeoutMs: 5_000,
    maxTimeoutMs: PROVIDER_MAX_TIMEOUT_MS,
    async execute() {
      throw new NodeFailure(
        'provider_auth_required',
        `No provider is configured for node type '${type}': set ${providerSetting(type)}`,
      );
    },
  };
}
