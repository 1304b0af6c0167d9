// @weft/catalog: agents, their versions and apps. The only code that reads or
// writes those tables; the gateway's routes and the engine go through here.
export { agentTargetOf, resolveAgentTarget, type AgentTarget } from './agent-target';
export { resolveAppTarget, type AppTarget } from './app-target';
export { createAgent, type CreateAgentInput } from './create-agent';
export { createApp, type CreateAppInput } from './create-app';
export { loadAgent, readableAgent, readableStoredAgent, type LoadedAgent, type StoredAgent } from './get-agent';
export { getApp } from './get-app';
export { listAgents, type ListAgentsInput } from './list-agents';
export { listApps, type ListAppsInput } from './list-apps';
export { publishAgentVersion, type PublishedVersion } from './publish-agent-version';
export { VersionCache, type LoadedVersion } from './version-cache';
export { joinAgentVersion } from './version-join';
