import type { PriceTable } from '../prices';

// OpenAI's list prices, in credits (1 credit = US$0.001), per unit each model
// is charged by: tokens for chat and gpt-image, images for DALL·E,
// characters for speech, seconds for transcription and video.

export const OPENAI_PRICES: PriceTable = {
  'openai:gpt-4o-mini': { input_per_million: 150, output_per_million: 600 },
  'openai:gpt-4o': { input_per_million: 2500, output_per_million: 10_000 },
  'openai:gpt-4.1': { input_per_million: 2000, output_per_million: 8000 },
  'openai:gpt-4.1-mini': { input_per_million: 400, output_per_million: 1600 },
  'openai:gpt-4.1-nano': { input_per_million: 100, output_per_million: 400 },
  // gpt-image input is priced at its image-token rate ($10/M; text is $5/M): an edit sends an image.
  'openai:gpt-image-1': { input_per_million: 10_000, output_per_million: 40_000 },
  'openai:gpt-image-1-mini': { input_per_million: 2500, output_per_million: 8000 },
  // DALL·E at the price of its largest size (which aspect_ratio may choose).
  'openai:dall-e-3': { per_image: 80 },
  'openai:dall-e-2': { per_image: 20 },
  'openai:tts-1': { per_thousand_characters: 15 },
  'openai:tts-1-hd': { per_thousand_characters: 30 },
  // Billed by tokens (US$0.60/M text in, US$12/M audio out), about US$0.015 a minute of speech: ~1000 characters.
  'openai:gpt-4o-mini-tts': { per_thousand_characters: 15 },
  'openai:whisper-1': { per_second: 0.1 },
  'openai:gpt-4o-transcribe': { per_second: 0.1 },
  'openai:gpt-4o-mini-transcribe': { per_second: 0.05 },
  'openai:sora-2': { per_second: 100 },
  // At its largest size (options.size may ask for it); US$0.30 a second at 720p.
  'openai:sora-2-pro': { per_second: 500 },
  // An unknown model is priced as a large one, whatever it makes: undercharging is the costlier mistake.
  'openai:*': {
    input_per_million: 2500,
    output_per_million: 10_000,
    per_image: 200,
    per_thousand_characters: 30,
    per_second: 500,
  },
};
