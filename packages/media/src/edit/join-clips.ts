import { COMMON_AUDIO, fitToFrame, silence, type FrameFormat } from './fit-frame';
import { chain, graph, streamOf } from './filter-graph';

export interface ClipToJoin {
  /** The index of its video stream in its file. */
  videoStream: number;
  /** Whether it has sound (its first audio stream is used). */
  audio: boolean;
  /** Seconds; required of a clip without sound when another clip has some. */
  duration?: number;
}

export interface JoinGraph {
  /** The -filter_complex argument; its outputs are `[v]` and, `withSound`, `[a]`. */
  filter: string;
  withSound: boolean;
}

/**
 * The filter graph joining `clips` (input i of the command is clips[i]) into
 * one video of `frame`: each scaled and padded to it, its sound (or silence
 * as long as the clip, when it has none, so that the next clip's sound starts
 * with its picture) brought to one format, then all concatenated. No sound
 * track at all when no clip has sound.
 */
export function joinClipsGraph(clips: readonly ClipToJoin[], frame: FrameFormat): JoinGraph {
  const withSound = clips.some((c) => c.audio);
  const chains: string[] = [];
  const segments: string[] = [];
  for (const [i, clip] of clips.entries()) {
    chains.push(chain([streamOf(i, clip.videoStream)], fitToFrame(frame), [`v${i}`]));
    segments.push(`v${i}`);
    if (!withSound) continue;
    if (clip.audio) chains.push(chain([streamOf(i, 'a:0')], [COMMON_AUDIO], [`a${i}`], 'audio'));
    else {
      if (clip.duration === undefined) throw new RangeError(`clip ${i} has no sound and no known duration`);
      chains.push(chain([], silence(clip.duration), [`a${i}`], 'audio'));
    }
    segments.push(`a${i}`);
  }
  const outputs = withSound ? ['v', 'a'] : ['v'];
  chains.push(chain(segments, [`concat=n=${clips.length}:v=1:a=${withSound ? 1 : 0}`], outputs));
  return { filter: graph(chains), withSound };
}
