import { parseNodeParams } from '../node-params';
import { definitionOf } from '../registry';
import type { NodeAssets, NodeContext, NodeResult, ProviderJobRef, ProviderJobs } from '../types';

// For unit tests of a node type's execute: a context with nothing behind it
// but what the test gives. Tests through the API use the real engine.

const nothing = async (): Promise<never> => {
  throw new Error('this test gave the node no assets');
};

export const NO_ASSETS: NodeAssets = {
  info: nothing,
  read: nothing,
  download: nothing,
  url: nothing,
  store: nothing,
  copy: nothing,
};

/** Provider jobs kept in memory, as the engine keeps them in PostgreSQL per attempt. */
export function memoryProviderJobs(): ProviderJobs & { job?: ProviderJobRef; cancelRecorded?: boolean } {
  const jobs: ProviderJobs & { job?: ProviderJobRef; cancelRecorded?: boolean } = {
    recall: async () => jobs.job,
    remember: async (job) => {
      jobs.job = job;
    },
    canceled: async () => {
      jobs.cancelRecorded = true;
    },
  };
  return jobs;
}

/** A context for a node of `type`; `params` are parsed by the type's schema, as the engine does. */
export function testContext(type: string, over: Partial<NodeContext> = {}): NodeContext {
  return {
    runId: 'r',
    organizationId: 'o',
    nodeId: 'n',
    nodeType: type as NodeContext['nodeType'],
    attempt: 0,
    inputs: {},
    runInput: undefined,
    signal: new AbortController().signal,
    assets: NO_ASSETS,
    outboundAllowList: [],
    imageLimits: { maxPixels: 100_000_000 },
    tools: { ffmpeg: 'ffmpeg', ffprobe: 'ffprobe', espeak: 'espeak-ng' },
    workDir: nothing,
    providerJobs: memoryProviderJobs(),
    ...over,
    params: parseNodeParams(type, over.nodeId ?? 'n', over.params),
  };
}

/** Executes a node of `type` in testContext. */
export function executeInTest(type: string, over: Partial<NodeContext> = {}): Promise<NodeResult> {
  return definitionOf(type).execute(testContext(type, over));
}
