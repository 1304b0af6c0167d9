import { Presets, SingleBar } from 'cli-progress';
import type { AnyRun, RunDelta, RunEvent } from '@weft/sdk';
import type { CliIo } from '../io';

// What `weft run` and `weft runs watch` show while a run goes: on a terminal a
// progress bar with the node running and the elapsed time, and the text nodes
// write as they go (an llm's answer) above it; elsewhere one line per change on
// stderr; with --json nothing.

export interface Progress {
  event(event: RunEvent): void;
  /** Text a node produces as it comes: shown where a person watches, nowhere else. */
  delta(delta: RunDelta): void;
  /** Prints a line above the bar (or as a line). */
  note(text: string): void;
  /** Around a prompt: the bar steps aside and comes back. */
  pause(): void;
  resume(): void;
  stop(): void;
}

export type ProgressMode = 'bar' | 'lines' | 'quiet';

export function createProgress(io: CliIo, mode: ProgressMode): Progress {
  if (mode === 'bar' && io.terminal) return new BarProgress(io.terminal.output as NodeJS.WriteStream);
  if (mode === 'quiet') return { event: noop, delta: noop, note: noop, pause: noop, resume: noop, stop: noop };
  return new LineProgress(io);
}

const noop = () => undefined;

/** The node to show: the one that changed last, while it runs or waits. */
function nodeLabel(event: RunEvent, previous: string): string {
  if (event.type === 'node') {
    const { node_id: id, type, status } = event.node;
    if (status === 'running') return `${id} (${type})`;
    if (status === 'waiting_review') return `${id}: waiting for review`;
    return previous;
  }
  if (event.type === 'end') return event.run.status;
  return event.run.current_node ?? (event.run.awaiting_human_review ? 'waiting for review' : previous);
}

class BarProgress implements Progress {
  private readonly bar: SingleBar;
  private node = 'starting';
  private value = 0;
  private running = false;
  // The bar's own clock restarts with it after each prompt; this one counts from the command's start.
  private readonly started = Date.now();
  private readonly ticker: NodeJS.Timeout;
  /** The node whose text is being written (the bar is aside meanwhile), and its last chunk. */
  private writing: { nodeId: string; index: number } | undefined;

  constructor(private readonly output: NodeJS.WriteStream) {
    this.bar = new SingleBar(
      {
        stream: output,
        format: '{bar} {percentage}% | {node} | {elapsed}',
        barsize: 30,
        hideCursor: true,
        clearOnComplete: false,
      },
      Presets.shades_classic,
    );
    this.bar.start(100, 0, this.payload());
    this.running = true;
    this.ticker = setInterval(() => this.render(), 1000).unref();
  }

  event(event: RunEvent): void {
    this.endText();
    this.node = nodeLabel(event, this.node);
    if (event.type !== 'node') this.value = Math.round(runProgress(event.run) * 100);
    this.render();
  }

  /**
   * The bar steps aside while a node's text comes: `<node> › ` then the text
   * as it is written, until the next event brings the bar back.
   */
  delta(delta: RunDelta): void {
    if (this.writing?.nodeId !== delta.node_id || delta.index <= this.writing.index) {
      this.endText();
      this.pause();
      this.output.write(`${delta.node_id} › `);
    }
    this.writing = { nodeId: delta.node_id, index: delta.index };
    this.output.write(delta.text);
  }

  private endText(): void {
    if (!this.writing) return;
    this.writing = undefined;
    this.output.write('\n');
    this.resume();
  }

  private render(): void {
    if (this.running) this.bar.update(this.value, this.payload());
  }

  private payload() {
    return { node: this.node, elapsed: elapsed(Date.now() - this.started) };
  }

  note(text: string): void {
    this.endText();
    if (!this.running) return void this.output.write(`${text}\n`);
    this.pause();
    this.output.write(`${text}\n`);
    this.resume();
  }

  pause(): void {
    if (!this.running) return;
    this.bar.stop();
    this.running = false;
  }

  resume(): void {
    if (this.running) return;
    this.bar.start(100, this.value, this.payload());
    this.running = true;
  }

  stop(): void {
    this.endText();
    clearInterval(this.ticker);
    this.render();
    this.pause();
  }
}

class LineProgress implements Progress {
  private readonly started = Date.now();
  private last = '';

  constructor(private readonly io: CliIo) {}

  event(event: RunEvent): void {
    let line: string;
    if (event.type === 'node') line = `node ${event.node.node_id} (${event.node.type}): ${event.node.status}`;
    else if (event.type === 'end') line = `run ${event.run.id}: ${event.run.status}`;
    else {
      const percent = Math.round(runProgress(event.run) * 100);
      const waiting = event.run.awaiting_human_review ? ', waiting for review' : '';
      line = `run ${event.run.id}: ${event.run.status} ${percent}%${event.run.current_node ? ` (${event.run.current_node})` : ''}${waiting}`;
    }
    if (line === this.last) return;
    this.last = line;
    this.note(line);
  }

  note(text: string): void {
    const seconds = Math.round((Date.now() - this.started) / 1000);
    this.io.stderr(
      `[${String(Math.floor(seconds / 60)).padStart(2, '0')}:${String(seconds % 60).padStart(2, '0')}] ${text}\n`,
    );
  }

  delta = noop;
  pause = noop;
  resume = noop;
  stop = noop;
}

/** mm:ss (h:mm:ss past an hour). */
function elapsed(ms: number): string {
  const total = Math.floor(ms / 1000);
  const mm = String(Math.floor((total % 3600) / 60)).padStart(2, '0');
  const ss = String(total % 60).padStart(2, '0');
  return total >= 3600 ? `${Math.floor(total / 3600)}:${mm}:${ss}` : `${mm}:${ss}`;
}

function runProgress(run: AnyRun): number {
  return run.status === 'completed' ? 1 : (run.progress ?? 0);
}
