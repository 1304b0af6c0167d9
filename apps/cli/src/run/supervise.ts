import { isFileDataType } from '@weft/contracts';
import fs from 'node:fs';
import type { AnyRun, PendingReview, RunDelta, WaitOptions, WeftClient } from '@weft/sdk';
import { EXIT, printJson, type CliIo } from '../io';
import { createProgress, type Progress } from './progress';
import { askReview } from './review-prompt';

// Following a run in the terminal, for `weft run` and `weft runs watch`:
// progress, review decisions, the downloads of its outputs, and an exit
// status that says how it ended.

export interface SuperviseOptions {
  json: boolean;
  /** Where the output files go; false: not downloaded. */
  out: string | false;
  /** Approve every review as proposed, without asking. */
  approveAll: boolean;
}

/** Why the wait was stopped on purpose. */
class Stop extends Error {
  constructor(
    readonly reason: 'review' | 'later',
    readonly run: AnyRun,
    readonly review: PendingReview,
  ) {
    super(reason);
  }
}

export async function superviseRun(
  io: CliIo,
  client: WeftClient,
  options: SuperviseOptions,
  follow: (wait: WaitOptions, progress: Progress) => Promise<AnyRun>,
): Promise<number> {
  const interactive = Boolean(io.terminal) && !options.json;
  const progress = createProgress(io, options.json ? 'quiet' : interactive ? 'bar' : 'lines');
  const controller = new AbortController();
  const interrupted = () => controller.abort(new Error('interrupted'));
  io.signal?.addEventListener('abort', interrupted, { once: true });

  const onReview: WaitOptions['onReview'] = async (review, run) => {
    if (options.approveAll) {
      progress.note(`review ${review.node_id}: approved as proposed (--approve-all)`);
      return { decision: 'approve' };
    }
    if (!interactive) {
      controller.abort(new Stop('review', run, review));
      return undefined;
    }
    progress.pause();
    const answer = await askReview(io, client, review, run, controller.signal);
    progress.resume();
    if (answer.decision === 'later') {
      controller.abort(new Stop('later', run, review));
      return undefined;
    }
    return answer;
  };

  let final: AnyRun;
  try {
    final = await follow(
      {
        onEvent: progressOf(client, progress, controller.signal),
        // Only a terminal shows them: scripts and --json get what they always had.
        ...(interactive ? { onDelta: (delta: RunDelta) => progress.delta(delta) } : {}),
        onReview,
        signal: controller.signal,
      },
      progress,
    );
  } catch (err) {
    progress.stop();
    const reason = controller.signal.reason as unknown;
    if (reason instanceof Stop) return stopped(io, options, reason);
    if (controller.signal.aborted || (err as Error)?.name === 'ExitPromptError') {
      io.stderr(`\nStopped following; the run goes on (weft runs watch <run id> to follow it again).\n`);
      return EXIT.interrupted;
    }
    throw err;
  } finally {
    io.signal?.removeEventListener('abort', interrupted);
  }
  progress.stop();
  const downloads = await downloadOutputs(client, final, options, progress);
  report(io, options, final, downloads);
  if (final.status === 'completed') return EXIT.completed;
  return final.status === 'canceled' ? EXIT.canceled : EXIT.failed;
}

/**
 * Shows each event. An event stream reports the run's progress only in its
 * `run` events (the first of each connection), and then node by node: when a
 * node settles, the run is read again (at most once a second) for its progress.
 */
function progressOf(client: WeftClient, progress: Progress, signal: AbortSignal): WaitOptions['onEvent'] {
  let current: AnyRun | undefined;
  let lastRead = 0;
  return async (event) => {
    progress.event(event);
    if (event.type !== 'node') {
      current = event.run;
      return;
    }
    const settled = !['running', 'waiting_review', 'pending'].includes(event.node.status);
    if (!current || !settled || Date.now() - lastRead < 1000) return;
    lastRead = Date.now();
    const runs = 'app_id' in current ? client.appRuns : client.runs;
    const run = await runs.get(current.id, { signal });
    if (run.status === 'in_progress') progress.event({ type: 'run', run });
  };
}

function stopped(io: CliIo, options: SuperviseOptions, stop: Stop): number {
  const { run, review } = stop;
  if (options.json) printJson(io, { run, waiting_for_review: review });
  const how =
    stop.reason === 'later' ? 'Decide it later' : 'There is no terminal to ask (or --json was given): decide it';
  io.stderr(
    `Run ${run.id} waits for review "${review.node_id}" (review ${review.id}). ${how} with ` +
      `\`weft runs watch ${run.id}\` in a terminal, or POST /runs/${run.id}/reviews/${review.id}; ` +
      '--approve-all approves every review as proposed.\n',
  );
  return EXIT.reviewPending;
}

interface Download {
  output: string;
  asset_id: string;
  path: string;
}

async function downloadOutputs(
  client: WeftClient,
  run: AnyRun,
  options: SuperviseOptions,
  progress: Progress,
): Promise<Download[]> {
  if (run.status !== 'completed' || options.out === false) return [];
  const downloads: Download[] = [];
  for (const result of run.results) {
    if (!isFileDataType(result.type) || !Array.isArray(result.value)) continue;
    fs.mkdirSync(options.out, { recursive: true });
    for (const assetId of result.value as string[]) {
      const saved = await client.download(assetId, options.out);
      downloads.push({ output: result.id, asset_id: assetId, path: saved.path! });
      progress.note(`downloaded ${result.id} → ${saved.path}`);
    }
  }
  return downloads;
}

function report(io: CliIo, options: SuperviseOptions, run: AnyRun, downloads: Download[]): void {
  if (options.json) return printJson(io, { run, downloads });
  if (run.status !== 'completed') {
    io.stderr(
      `Run ${run.id} ${run.status}${run.failure_reason ? ` (${run.failure_reason})` : ''}${run.error ? `: ${run.error}` : ''}\n`,
    );
    return;
  }
  for (const result of run.results) {
    if (isFileDataType(result.type)) {
      const paths = downloads.filter((d) => d.output === result.id).map((d) => d.path);
      io.stdout(`${result.id}: ${(paths.length > 0 ? paths : ((result.value as string[] | null) ?? [])).join(' ')}\n`);
    } else {
      io.stdout(`${result.id}: ${typeof result.value === 'string' ? result.value : JSON.stringify(result.value)}\n`);
    }
  }
}
