import { NodeFailure, type NodeContext, type NodeResult } from '@weft/nodes';
import type OpenAI from 'openai';
import { metered, type Capability, type ProviderCall } from '../capability';
import { storeResultBytes, storeResultUrl } from '../results';
import { erasePair, imageUpload, inputImage, optionalText, promptText } from './image-inputs';
import { openAIFailure } from './openai-failures';
import { imageSize, ratioOf } from './openai-sizes';

// image_generation, image_edit and image_erase through the images API:
// generations, or edits when there is an image to start from.

type GenerateBody = OpenAI.Images.ImageGenerateParamsNonStreaming;
type EditBody = OpenAI.Images.ImageEditParamsNonStreaming;

interface ImageParams {
  aspect_ratio?: string;
  count?: number;
  options?: Record<string, unknown>;
}

const DEFAULT_MODEL = 'gpt-image-1';

/**
 * gpt-image models always answer base64 and refuse `response_format`; DALL·E
 * and most compatible servers answer URLs unless asked for base64, which
 * spares fetching them.
 */
const responseFormat = (model: string): Pick<GenerateBody, 'response_format'> =>
  /^(gpt-image|chatgpt-image)/.test(model) ? {} : { response_format: 'b64_json' };

/** The images of an answer stored as the run's assets, with the images (and tokens, when reported) used. */
async function storedImages(
  ctx: NodeContext,
  call: ProviderCall<OpenAI>,
  response: OpenAI.Images.ImagesResponse,
): Promise<NodeResult> {
  const images = response.data ?? [];
  if (images.length === 0) {
    throw new NodeFailure('provider_error', `Node '${ctx.nodeId}': the provider answered no image`);
  }
  const ids: string[] = [];
  for (const [index, image] of images.entries()) {
    if (image.b64_json) ids.push(await storeResultBytes(ctx, Buffer.from(image.b64_json, 'base64'), index, 'image'));
    else if (image.url) ids.push(await storeResultUrl(ctx, image.url, index, 'image'));
    else throw new NodeFailure('provider_error', `Node '${ctx.nodeId}': the provider answered an image without data`);
  }
  const tokens = response.usage
    ? { input_tokens: response.usage.input_tokens, output_tokens: response.usage.output_tokens }
    : {};
  return { output: { type: 'images', value: ids }, ...metered(call, { images: ids.length, ...tokens }) };
}

async function edit(ctx: NodeContext, call: ProviderCall<OpenAI>, body: EditBody): Promise<NodeResult> {
  const response = await call.client.images.edit(body, { signal: ctx.signal }).catch((err: unknown) => {
    throw openAIFailure(err, ctx.nodeId, call.credentialSource);
  });
  return storedImages(ctx, call, response);
}

/** image_generation: images.generate, or images.edit of the reference image at `image`. */
export function openAIImageGeneration(): Capability<OpenAI> {
  return {
    defaultModel: DEFAULT_MODEL,
    async execute(ctx, call) {
      const { aspect_ratio, count, options } = ctx.params as ImageParams;
      const prompt = promptText(ctx);
      const common = {
        // Provider-specific settings first: the node's own params win over them.
        ...(options ?? {}),
        model: call.model,
        prompt,
        n: count ?? 1,
        ...(aspect_ratio ? { size: imageSize(call.model, ratioOf(ctx, aspect_ratio)) } : {}),
        ...responseFormat(call.model),
      };
      if (ctx.inputs.image !== undefined) {
        const image = await imageUpload(await inputImage(ctx, 'image'), 'reference');
        return edit(ctx, call, { ...common, image } as EditBody);
      }
      const response = await call.client.images
        .generate(common as GenerateBody, { signal: ctx.signal })
        .catch((err: unknown) => {
          throw openAIFailure(err, ctx.nodeId, call.credentialSource);
        });
      return storedImages(ctx, call, response);
    },
  };
}

/** image_edit: images.edit of the image at `image` as the prompt says. */
export function openAIImageEdit(): Capability<OpenAI> {
  return {
    defaultModel: DEFAULT_MODEL,
    async execute(ctx, call) {
      const { options } = ctx.params as ImageParams;
      const prompt = promptText(ctx);
      const image = await imageUpload(await inputImage(ctx, 'image'), 'image');
      return edit(ctx, call, {
        ...(options ?? {}),
        model: call.model,
        prompt,
        image,
        n: 1,
        ...responseFormat(call.model),
      } as EditBody);
    },
  };
}

/** What to ask of the model when erasing, from what the node was given. */
function erasePrompt(ctx: NodeContext, hasMask: boolean, said: string | undefined): string {
  if (said && hasMask) return `Remove ${said} from the transparent area and fill it in to match its surroundings.`;
  if (said) return `Remove ${said} from the image and fill in where it was to match its surroundings.`;
  if (hasMask) return 'Remove what is in the transparent area and fill it in to match its surroundings.';
  throw new NodeFailure(
    'invalid_input',
    `Node '${ctx.nodeId}' needs a mask at input 'mask' or what to erase at input 'prompt'`,
  );
}

/**
 * image_erase: images.edit with our mask (white where to erase) turned into
 * OpenAI's (transparent where to edit); without a mask, the prompt names what
 * to remove.
 */
export function openAIImageErase(): Capability<OpenAI> {
  return {
    defaultModel: DEFAULT_MODEL,
    async execute(ctx, call) {
      const { options } = ctx.params as ImageParams;
      const said = optionalText(ctx, 'prompt');
      const hasMask = ctx.inputs.mask !== undefined;
      const prompt = erasePrompt(ctx, hasMask, said);
      const image = await inputImage(ctx, 'image');
      const files = hasMask
        ? await erasePair(ctx, image, await inputImage(ctx, 'mask'))
        : { image: await imageUpload(image, 'image') };
      return edit(ctx, call, {
        ...(options ?? {}),
        model: call.model,
        prompt,
        ...files,
        n: 1,
        ...responseFormat(call.model),
      } as EditBody);
    },
  };
}
