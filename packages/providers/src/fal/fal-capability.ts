import type { FalClient } from '@fal-ai/client';
import type { DataType } from '@weft/contracts';
import type { NodeContext, NodeResult } from '@weft/nodes';
import { metered, type Capability, type ProviderCall } from '../capability';
import { falFailure } from './fal-failures';
import { appFor, falInput } from './fal-input';
import type { FalTypeMapping } from './fal-models';
import { completion, submitOnce, type QueueSettings } from './fal-queue';
import { storeFiles } from './fal-results';
import { abortable } from './fal-wait';

const OUTPUT: Record<FalTypeMapping['result']['kind'], DataType> = { image: 'images', video: 'videos', audio: 'audio' };

/** A node type served through fal's queue: input → submit (once per attempt) → poll → result → assets. */
export function falCapability(mapping: FalTypeMapping, settings: QueueSettings): Capability<FalClient> {
  return {
    defaultModel: mapping.defaultModel,
    async execute(ctx: NodeContext, call: ProviderCall<FalClient>): Promise<NodeResult> {
      const client = call.client;
      let app = appFor(ctx, mapping, call.model);
      let data: unknown;
      try {
        const request = await submitOnce(ctx, client, app, () => falInput(ctx, client, mapping));
        // A recalled request runs on the app it was submitted to.
        app = request.app;
        await completion(ctx, client, request, settings);
        ({ data } = await abortable(
          client.queue.result(app, { requestId: request.requestId, abortSignal: ctx.signal }),
          ctx.signal,
        ));
      } catch (err) {
        throw falFailure(err, ctx.nodeId, call.credentialSource);
      }
      const { ids, units } = await storeFiles(ctx, data, mapping);
      return { output: { type: OUTPUT[mapping.result.kind], value: ids }, ...metered({ ...call, model: app }, units) };
    },
  };
}
