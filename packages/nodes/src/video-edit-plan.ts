import { keepAudioRanges, keepVideoRanges, keptDuration, mergeRanges, num, type Range } from '@weft/media';

// video_edit's list of edits turned into ffmpeg filters, checked against the
// video as each edit leaves it: a crop is checked against the frame the edits
// before it left, a cut against the length they left.

export type Edit =
  | { cut: Range[] }
  | { crop: { x: number; y: number; width: number; height: number } }
  | { resize: { width: number; height: number } }
  | { fps: number }
  | { mute: true };

/** The video as the edits so far leave it. */
export interface VideoState {
  width: number;
  height: number;
  frameRate?: number;
  /** Seconds; undefined when the file does not say. */
  duration?: number;
  audio: boolean;
}

export interface EditPlan {
  /** The video track's filters, in order. */
  videoFilters: string[];
  /** Chains from the sound track at label `audioInput` to the label `audioOutput` (none when it is kept as is). */
  audioChains: string[];
  /** The label of the sound that goes out; undefined when there is none. */
  audioOutput?: string;
  result: VideoState;
}

/** An edit that cannot apply to the video as it is at that point: `message` says why. */
export class EditProblem extends Error {}

/** A cut's slack past the end: a clip "of 5 s" may be probed at 4.992 s. */
function slack(state: VideoState): number {
  return state.frameRate ? 1 / state.frameRate : 0.05;
}

function ordinal(index: number): string {
  return `params.edits[${index}]`;
}

/** The filters of `edits` applied to a video of `start`, whose sound (if any) is at label `audioInput`. */
export function planEdits(edits: readonly Edit[], start: VideoState, audioInput: string): EditPlan {
  const state: VideoState = { ...start };
  const videoFilters: string[] = [];
  const audioChains: string[] = [];
  let audioLabel = audioInput;
  for (const [index, edit] of edits.entries()) {
    if ('cut' in edit) {
      const ranges = mergeRanges(edit.cut);
      const last = ranges[ranges.length - 1]!;
      if (state.duration !== undefined && last[1] > state.duration + slack(state)) {
        throw new EditProblem(
          `${ordinal(index)} keeps [${num(last[0])}, ${num(last[1])}], past the end of the video ` +
            `(${num(state.duration)} s at that point)`,
        );
      }
      const kept = ranges.map(([s, e]): Range => [s, Math.min(e, state.duration ?? e)]).filter(([s, e]) => e > s);
      if (kept.length === 0) throw new EditProblem(`${ordinal(index)} keeps nothing of the video`);
      videoFilters.push(...keepVideoRanges(kept));
      if (state.audio) {
        const next = `cut${index}`;
        audioChains.push(...keepAudioRanges(audioLabel, kept, next));
        audioLabel = next;
      }
      state.duration = keptDuration(kept);
    } else if ('crop' in edit) {
      const { x, y, width, height } = edit.crop;
      if (x + width > state.width || y + height > state.height) {
        throw new EditProblem(
          `${ordinal(index)} crops ${width}×${height} at (${x}, ${y}), outside the frame ` +
            `(${state.width}×${state.height} at that point)`,
        );
      }
      videoFilters.push(`crop=${width}:${height}:${x}:${y}`);
      state.width = width;
      state.height = height;
    } else if ('resize' in edit) {
      const { width, height } = edit.resize;
      // Square pixels: the result shows as width × height, whatever the source's pixel shape.
      videoFilters.push(`scale=${width}:${height}`, 'setsar=1');
      state.width = width;
      state.height = height;
    } else if ('fps' in edit) {
      videoFilters.push(`fps=${num(edit.fps)}`);
      state.frameRate = edit.fps;
    } else {
      state.audio = false;
    }
  }
  return {
    videoFilters,
    audioChains: state.audio ? audioChains : [],
    ...(state.audio ? { audioOutput: audioLabel } : {}),
    result: state,
  };
}
