import type { NodeType } from '@weft/contracts';
import {
  definitionOf,
  guardedFetch,
  NodeFailure,
  parseAllowList,
  type NodeRoute,
  type NodeRoutes,
  type ProviderJobOwner,
} from '@weft/nodes';
import type { Capability } from './capability';
import type { OrganizationCredentials, ProviderCredential } from './credentials';
import type { PriceTable } from './prices';
import type { ProviderAdapter } from './provider-adapter';
import type { RouteEntry, RouteTable } from './route-table';

/** What GET /node-types shows of a type's route in this deployment. */
export interface DeploymentRoutes extends NodeRoutes {
  /** The adapters, by provider name (the credentials API verifies keys through them). */
  adapters: ReadonlyMap<string, ProviderAdapter>;
  /** A client of `adapter` for `credential`, made once per credential (organization base URLs under the outbound rules). */
  clientFor(adapter: ProviderAdapter, credential: ProviderCredential): unknown;
  /**
   * Checks a credential with the provider before it is stored: resolves when
   * the provider accepts it, throws what the SDK threw otherwise.
   */
  verify(provider: string, credential: ProviderCredential, signal: AbortSignal): Promise<void>;
  /** For GET /node-types: where each type goes for the organization, or what is missing. */
  describe(types: readonly NodeType[], organizationId: string): Promise<Map<NodeType, RouteDescription>>;
}

/** Where a type goes for an organization: a provider and model, the worker itself, or what is missing. */
export type RouteDescription = { provider: string; model: string } | { missing: string } | { local: true };

export interface RouteOptions {
  prices: PriceTable;
  /** The organizations' own credentials; without it only the deployment's serve. */
  organizations?: OrganizationCredentials;
  /** OUTBOUND_ALLOWED_HOSTS: what an organization's base URL may reach despite the address rules. */
  outboundAllowList?: readonly string[];
}

/** Organization clients kept: enough for the organizations active at once, bounded all the same. */
const MAX_ORG_CLIENTS = 256;

/**
 * The routes of a deployment: NODE_ROUTES first, else the first adapter
 * serving the type with a credential (the organization's own, else the
 * deployment's), each with its default model; a node's params.provider and
 * params.model choose among what the deployment allows.
 */
export function nodeRoutes(
  adapters: readonly ProviderAdapter[],
  table: RouteTable,
  options: RouteOptions,
): DeploymentRoutes {
  const byName = new Map(adapters.map((a) => [a.provider, a]));
  const deploymentClients = new Map<string, unknown>();
  const orgClients = new Map<string, unknown>();
  const orgFetch = guardedFetch(parseAllowList(options.outboundAllowList ?? []));

  function clientFor(adapter: ProviderAdapter, credential: ProviderCredential): unknown {
    if (credential.origin.kind === 'deployment') {
      if (!deploymentClients.has(adapter.provider)) {
        // The operator's base URL is theirs to choose (ADR 0030): the process's own fetch.
        deploymentClients.set(adapter.provider, adapter.connect(credential, undefined));
      }
      return deploymentClients.get(adapter.provider);
    }
    const key = `${credential.origin.id}`;
    let client = orgClients.get(key);
    if (client === undefined) {
      client = connectOrganization(adapter, credential);
      if (orgClients.size >= MAX_ORG_CLIENTS) orgClients.delete(orgClients.keys().next().value!);
      orgClients.set(key, client);
    }
    return client;
  }

  /** An organization's client: its own base URL under the outbound rules, else the operator's. */
  function connectOrganization(adapter: ProviderAdapter, credential: ProviderCredential): unknown {
    if (credential.baseURL) return adapter.connect(credential, orgFetch);
    const base = adapter.defaultBaseURL;
    return adapter.connect(base ? { ...credential, baseURL: base } : credential, undefined);
  }

  type Orgs = OrganizationCredentials | undefined;

  async function credentialOf(adapter: ProviderAdapter, organizationId: string, orgs: Orgs) {
    const own = await orgs?.forProvider(organizationId, adapter.provider);
    return own ?? adapter.deployment;
  }

  const servers = (type: NodeType) => adapters.filter((a) => a.capabilities[type]);
  const setThe = (adapter: ProviderAdapter, type: NodeType) =>
    `set ${adapter.credential} or store the organization's own ${adapter.provider} credential (POST /credentials)` +
    ` (and NODE_ROUTES=${type}=${adapter.provider}:<model> to choose a model)`;

  /** The credential a node names (params.credential_id), which also decides the provider. */
  async function named(type: NodeType, organizationId: string, id: string, asked: string | undefined, orgs: Orgs) {
    const found = await orgs?.byId(organizationId, id);
    if (!found)
      throw new NodeFailure('invalid_input', `params.credential_id: the organization has no credential ${id}`);
    const adapter = byName.get(found.provider);
    if (!adapter?.capabilities[type] || (asked !== undefined && asked !== found.provider)) {
      throw new NodeFailure(
        'invalid_input',
        `params.credential_id: credential ${id} is for ${found.provider}, which does not serve ${type}` +
          (asked !== undefined && asked !== found.provider ? ` as params.provider '${asked}' asks` : ''),
      );
    }
    return { adapter, credential: found as ProviderCredential };
  }

  async function resolve(
    type: NodeType,
    params: Record<string, unknown>,
    organizationId: string,
    orgs: Orgs,
  ): Promise<NodeRoute | { missing: string } | { local: true }> {
    const asked = typeof params.provider === 'string' ? params.provider : undefined;
    const credentialId = typeof params.credential_id === 'string' ? params.credential_id : undefined;
    const model = typeof params.model === 'string' ? params.model : undefined;
    const routed = (await orgs?.chosenRoutes(organizationId))?.get(type) ?? table.get(type);
    // A type the worker serves itself goes to a provider only when asked for or routed to one.
    const unasked = asked === undefined && credentialId === undefined;
    const local = asked === 'local' || (unasked && (!routed || routed.provider === 'local'));
    if (definitionOf(type).localRoute && local) {
      return { local: true };
    }
    let adapter: ProviderAdapter | undefined;
    let credential: ProviderCredential | undefined;
    const name = asked ?? routed?.provider;
    if (credentialId !== undefined) {
      ({ adapter, credential } = await named(type, organizationId, credentialId, asked, orgs));
    } else if (name !== undefined) {
      adapter = byName.get(name);
      if (!adapter?.capabilities[type]) {
        const known =
          servers(type)
            .map((a) => a.provider)
            .join(', ') || 'none';
        const why = `provider '${name}' does not serve ${type} in this version (providers serving it: ${known})`;
        // A provider the node asked for by name is the flow's mistake, not the deployment's.
        if (asked !== undefined) throw new NodeFailure('invalid_input', `params.provider: ${why}`);
        return { missing: why };
      }
      credential = await credentialOf(adapter, organizationId, orgs);
    } else {
      for (const candidate of servers(type)) {
        credential = await credentialOf(candidate, organizationId, orgs);
        if (credential) {
          adapter = candidate;
          break;
        }
      }
      // With no credential anywhere, the failure names the type's first adapter (its documented route).
      adapter ??= servers(type)[0];
      if (!adapter) return { missing: `no provider adapter of this version serves ${type}` };
    }
    if (!credential) return { missing: setThe(adapter, type) };
    const capability = adapter.capabilities[type] as Capability<unknown>;
    const sameAsRouted = adapter.provider === routed?.provider;
    const chosen = model ?? (sameAsRouted ? routed?.model : undefined);
    const call = {
      client: clientFor(adapter, credential),
      provider: adapter.provider,
      model: chosen ?? capability.defaultModel,
      prices: options.prices,
      credentialSource:
        credential.origin.kind === 'deployment'
          ? credential.origin.setting
          : `the organization's credential ${credential.origin.id}`,
    };
    return { provider: call.provider, model: call.model, execute: (ctx) => capability.execute(ctx, call) };
  }

  /**
   * The credential a node of the organization uses for `adapter`: the one its
   * params name when it is for that provider, else the organization's own,
   * else the deployment's (resolve's order, the provider being known).
   */
  async function jobCredential(adapter: ProviderAdapter, owner: ProviderJobOwner, orgs: Orgs) {
    if (owner.credentialId !== undefined) {
      const found = await orgs?.byId(owner.organizationId, owner.credentialId);
      if (found?.provider === adapter.provider) return found as ProviderCredential;
    }
    return credentialOf(adapter, owner.organizationId, orgs);
  }

  return {
    adapters: byName,
    clientFor,
    async cancelJob(job, owner, signal) {
      const adapter = byName.get(job.provider);
      if (!adapter?.cancelJob) return false;
      const credential = await jobCredential(adapter, owner, options.organizations);
      if (!credential) return false;
      await adapter.cancelJob(clientFor(adapter, credential), job, signal);
      return true;
    },
    async verify(provider, credential, signal) {
      const adapter = byName.get(provider);
      if (!adapter) throw new Error(`no adapter ${provider}`);
      await adapter.verify(connectOrganization(adapter, credential), signal);
    },
    routeFor: (type, params, organizationId) => resolve(type, params, organizationId, options.organizations),
    async describe(types, organizationId) {
      // One look-up per provider for the whole list, not one per type.
      const seen = new Map<string, Promise<ProviderCredential | undefined>>();
      let chosen: Promise<ReadonlyMap<string, RouteEntry>> | undefined;
      const orgs = options.organizations;
      const memo: OrganizationCredentials | undefined = orgs && {
        forProvider: (org, provider) => {
          if (!seen.has(provider)) seen.set(provider, orgs.forProvider(org, provider));
          return seen.get(provider)!;
        },
        byId: (org, id) => orgs.byId(org, id),
        chosenRoutes: (org) => (chosen ??= orgs.chosenRoutes(org)),
      };
      const described = new Map<NodeType, RouteDescription>();
      for (const type of types) {
        const found = await resolve(type, {}, organizationId, memo);
        described.set(type, 'execute' in found ? { provider: found.provider, model: found.model } : found);
      }
      return described;
    },
  };
}
