import type { PriceTable } from '../prices';

// Replicate's list prices, in credits (1 credit = US$0.001). Official models
// are billed by output (images, videos) or tokens; other models by the
// seconds they run on their hardware (T4 $0.000225/s, L40S $0.000975/s,
// A100 80GB $0.0014/s). Keys are `owner/name`: every version of a model
// is priced alike.
export const REPLICATE_PRICES: PriceTable = {
  'replicate:meta/meta-llama-3-8b-instruct': { input_per_million: 50, output_per_million: 250 },
  'replicate:black-forest-labs/flux-schnell': { per_image: 3 },
  'replicate:black-forest-labs/flux-dev-lora': { per_image: 32 },
  'replicate:black-forest-labs/flux-kontext-pro': { per_image: 40 },
  'replicate:minimax/video-01': { per_item: 500 },
  // Hardware-billed: T4.
  'replicate:nightmareai/real-esrgan': { per_second: 0.225 },
  'replicate:851-labs/background-remover': { per_second: 0.225 },
  // Hardware-billed: L40S.
  'replicate:openai/whisper': { per_second: 0.975 },
  // Hardware-billed: A100 (80GB).
  'replicate:meta/musicgen': { per_second: 1.4 },
  // Another model is priced as a large one on the costliest single GPU, by every unit it reports:
  // undercharging is the costlier mistake.
  'replicate:*': {
    per_second: 2,
    per_image: 100,
    per_item: 1000,
    input_per_million: 5000,
    output_per_million: 15_000,
  },
};
