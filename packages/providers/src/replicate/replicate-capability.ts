import { NodeFailure, type NodeContext, type NodeResult, type UsageUnit } from '@weft/nodes';
import type Replicate from 'replicate';
import type { Prediction } from 'replicate';
import type { Capability, ProviderCall } from '../capability';
import { creditsFor } from '../prices';
import { storeResultUrl, type ResultKind } from '../results';
import type { Produces, ReplicateModel } from './replicate-models';
import { predict, type PollPolicy } from './replicate-prediction';

const KIND: Record<Exclude<Produces, 'text'>, ResultKind> = { images: 'image', videos: 'video', audio: 'audio' };

type Units = Partial<Record<UsageUnit, number>>;

/** The file URLs of an output: one URL, or a list of them. */
function outputUrls(output: unknown): string[] | undefined {
  const list = Array.isArray(output) ? (output as unknown[]) : [output];
  const urls = list.filter((u): u is string => typeof u === 'string' && /^https?:\/\//.test(u));
  return urls.length > 0 && urls.length === list.length ? urls : undefined;
}

/**
 * What a prediction used: the seconds it ran (what Replicate bills most models
 * by), and the outputs or tokens of the models it bills by those.
 */
function unitsOf(prediction: Prediction, produces: Produces, outputs: number): Units {
  const metrics = (prediction.metrics ?? {}) as Record<string, unknown>;
  const number = (key: string) => (typeof metrics[key] === 'number' ? (metrics[key] as number) : undefined);
  const units: Units = { seconds: number('predict_time') ?? 0 };
  if (produces === 'images') units.images = outputs;
  if (produces === 'videos') units.items = outputs;
  const input = number('input_token_count');
  const output = number('output_token_count');
  if (input !== undefined) units.input_tokens = input;
  if (output !== undefined) units.output_tokens = output;
  return units;
}

/**
 * The cost and usage of a prediction. A model is priced as `owner/name:version`
 * when the table names that version, else as `owner/name`: Replicate's prices
 * are the model's (or its hardware's), whatever version runs.
 */
function charge(call: ProviderCall<Replicate>, units: Units): Pick<NodeResult, 'cost' | 'usage'> {
  const priced = call.prices[`${call.provider}:${call.model}`] ? call.model : call.model.split(':')[0]!;
  return {
    cost: creditsFor(call.prices, call.provider, priced, units),
    usage: { provider: call.provider, model: call.model, units },
  };
}

/** A node type served by a Replicate model: one prediction, its output stored or read as text. */
export function replicateCapability(spec: ReplicateModel, poll: PollPolicy): Capability<Replicate> {
  return {
    defaultModel: spec.defaultModel,
    async execute(ctx: NodeContext, call: ProviderCall<Replicate>): Promise<NodeResult> {
      const prediction = await predict(ctx, call, () => spec.input(ctx), {
        ...(spec.wait ? { wait: spec.wait } : {}),
        poll,
      });
      const malformed = () =>
        new NodeFailure(
          'provider_error',
          `Node '${ctx.nodeId}': the prediction ${prediction.id} answered no ${spec.produces} the node can use`,
        );
      if (spec.produces === 'text') {
        const text = spec.text?.(prediction.output);
        if (text === undefined) throw malformed();
        return { output: { type: 'text', value: text }, ...charge(call, unitsOf(prediction, 'text', 1)) };
      }
      const urls = outputUrls(prediction.output);
      if (!urls) throw malformed();
      const ids: string[] = [];
      for (const [index, url] of urls.entries()) ids.push(await storeResultUrl(ctx, url, index, KIND[spec.produces]));
      return {
        output: { type: spec.produces, value: ids },
        ...charge(call, unitsOf(prediction, spec.produces, urls.length)),
      };
    },
  };
}
