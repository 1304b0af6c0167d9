import type { PriceTable } from '../prices';

// fal's list prices at the time of writing (fal.ai/pricing and each model's
// page), in credits: 1 credit = US$0.001. Image apps charge per megapixel
// (fal rounds up to whole megapixels; we charge what was made) or per image,
// video and audio apps per second of what they made.
export const FAL_PRICES: PriceTable = {
  'fal:fal-ai/flux/dev': { per_megapixel: 25 },
  'fal:fal-ai/flux/dev/image-to-image': { per_megapixel: 30 },
  'fal:fal-ai/flux-lora': { per_megapixel: 35 },
  'fal:fal-ai/flux-pro/kontext': { per_image: 40 },
  'fal:fal-ai/bria/eraser': { per_image: 40 },
  'fal:fal-ai/finegrain-eraser': { per_image: 90 },
  'fal:fal-ai/qwen-image-edit-2511-multiple-angles': { per_megapixel: 35 },
  'fal:fal-ai/birefnet': { per_image: 2 },
  'fal:fal-ai/clarity-upscaler': { per_megapixel: 30 },
  'fal:fal-ai/kling-video/v2.5-turbo/pro/text-to-video': { per_second: 70 },
  'fal:fal-ai/kling-video/v2.5-turbo/pro/image-to-video': { per_second: 70 },
  'fal:fal-ai/topaz/upscale/video': { per_second: 80 },
  'fal:fal-ai/birefnet/v2/video': { per_second: 10 },
  'fal:fal-ai/elevenlabs/music': { per_second: 13 },
  'fal:fal-ai/elevenlabs/audio-isolation': { per_second: 2 },
  // An app the table does not list is priced as an expensive one: undercharging is the costlier mistake.
  'fal:*': { per_image: 100, per_megapixel: 100, per_second: 150, per_request: 100 },
};
