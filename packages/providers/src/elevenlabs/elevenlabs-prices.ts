import type { PriceTable } from '../prices';

// ElevenLabs' API list prices at the time of writing (pay-as-you-go, in
// credits: 1 credit = US$0.001). Speech is billed by characters, Scribe,
// voice isolation, music and dubbing by seconds of media, a voice clone by
// request (it has no list price of its own: a nominal one, so it is never free).
export const ELEVENLABS_PRICES: PriceTable = {
  // $0.10 per 1 000 characters (Multilingual v2, v3); Flash and Turbo half.
  'elevenlabs:eleven_multilingual_v2': { per_thousand_characters: 100 },
  'elevenlabs:eleven_v3': { per_thousand_characters: 100 },
  'elevenlabs:eleven_flash_v2_5': { per_thousand_characters: 50 },
  'elevenlabs:eleven_turbo_v2_5': { per_thousand_characters: 50 },
  // $0.40 per hour of audio.
  'elevenlabs:scribe_v1': { per_second: 0.4 / 3.6 },
  // $0.12 per minute of audio.
  'elevenlabs:audio_isolation': { per_second: 2 },
  // $0.80 per minute of music.
  'elevenlabs:music_v2': { per_second: 0.8 / 0.06 },
  // $0.50 per minute of source media.
  'elevenlabs:dubbing': { per_second: 0.5 / 0.06 },
  'elevenlabs:ivc': { per_request: 10 },
  // A model the table does not list is priced above every listed one: undercharging is the costlier mistake.
  'elevenlabs:*': { per_thousand_characters: 300, per_second: 20, per_request: 50 },
};
