import { Worker } from 'node:worker_threads';
import { AdmissionGate, GateFullError } from '@weft/admission';
import { UnprocessableMediaError } from './image';

// potrace is plain JavaScript: about three seconds of CPU for a 1024-pixel
// noise image, and a few hundred megabytes of heap. On the gateway's event
// loop that held up every other request, so traces run on worker threads,
// one at a time per process; the rest wait their turn in a queue.
//
// As in heic.ts, the worker is evaluated from source and requires the package
// by the path resolved here: the same in the sources (tests, tsx) and in the
// esbuild bundle, where third-party packages stay in node_modules and a
// worker entry file of our own would need an entry point of its own.

/** potrace's settings; a plain object, since it is copied to the worker. */
export interface TraceOptions {
  turdSize?: number;
  optTolerance?: number;
  /** The fill of the traced shapes (default black). */
  color?: string;
  /** Pixels darker than this (0–255) are traced (default: chosen from the histogram). */
  threshold?: number;
}

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { trace } = require(workerData.modulePath);
parentPort.postMessage({ ready: true });
parentPort.on('message', ({ png, options }) => {
  // A Buffer arrives as a Uint8Array; potrace's image reader wants a Buffer.
  trace(Buffer.from(png.buffer, png.byteOffset, png.byteLength), options, (err, svg) => {
    if (err || typeof svg !== 'string') {
      parentPort.postMessage({ error: String(err && err.message ? err.message : err || 'potrace produced nothing') });
    } else {
      parentPort.postMessage({ svg });
    }
  });
});
`;

/**
 * Traces at once per process: one. The gateway's pod is given 512 MiB
 * (infra/k8s), of which the gateway itself holds about half; and
 * os.availableParallelism() reports the host's cores, not the pod's CPU limit.
 */
export const TRACE_CONCURRENCY = 1;

export interface TracePoolSettings {
  /** A worker left idle this long is ended (and its heap returned); the next trace starts another. */
  idleMs: number;
  /**
   * Callers that may wait for a slot; one more is refused (TracerBusyError,
   * a 503 with Retry-After) rather than kept waiting behind minutes of traces
   * its client will have given up on.
   */
  maxQueued: number;
  /**
   * Longest a trace may run on its worker (not counting its wait in the queue
   * or the decoding): past it the worker is ended and the image refused as
   * too complex. The worst case at the tracer's size takes a few seconds.
   */
  timeoutMs: number;
  /**
   * Heap of one worker. Line art and logos, what the conversion is for, trace
   * in tens of megabytes; a 1024-pixel noise image, about the worst case at the
   * tracer's size, peaks near 450 MB. Beyond the limit the worker is ended and
   * the image refused as too complex (400), instead of the pod running out.
   */
  maxOldGenerationSizeMb: number;
}

const DEFAULT_SETTINGS: TracePoolSettings = {
  idleMs: 30_000,
  maxQueued: 8,
  timeoutMs: 30_000,
  maxOldGenerationSizeMb: 192,
};

/** A slow trace at the tracer's size, for a Retry-After: the queue ahead drains at about this pace. */
const SECONDS_PER_TRACE = 3;

/** All slots taken and the queue full: try again shortly. */
export class TracerBusyError extends Error {
  constructor(readonly retryAfterSeconds: number) {
    super('the SVG tracer is busy');
  }
}

interface Job {
  resolve(svg: string): void;
  reject(err: Error): void;
}

interface PooledWorker {
  worker: Worker;
  job?: Job;
  /** What the worker reported before it exited ('error' comes before 'exit'). */
  failure?: Error;
  idleTimer?: NodeJS.Timeout;
  /** Called once the thread has started and loaded potrace (at once for one that has). */
  onReady?: () => void;
  ready?: boolean;
}

/**
 * At most `size` traces at a time, each on a worker thread kept for the next
 * one; callers beyond that wait in a first-in first-out queue of at most
 * `maxQueued`, each holding no more than a closure (its image is read once
 * its turn comes, see `run`).
 */
export class TracePool {
  /** One unit per trace: `size` of them, and `maxQueued` callers waiting. */
  private readonly slots: AdmissionGate;
  private readonly idle: PooledWorker[] = [];
  private readonly settings: TracePoolSettings;
  private handed = 0;
  private alive = 0;

  constructor(
    readonly size: number,
    settings: Partial<TracePoolSettings> = {},
  ) {
    if (!(size >= 1)) throw new RangeError('a trace pool needs at least one slot');
    this.settings = { ...DEFAULT_SETTINGS, ...settings };
    this.slots = new AdmissionGate(size, this.settings.maxQueued);
  }

  /** Traces running or about to (their slot taken). */
  get running(): number {
    return this.slots.inUse;
  }

  /** Traces handed to a worker so far (for tests and diagnostics). */
  get traced(): number {
    return this.handed;
  }

  /** Worker threads alive, busy or idle. */
  get workers(): number {
    return this.alive;
  }

  /** Callers waiting for a slot. */
  get queued(): number {
    return this.slots.waiting;
  }

  /**
   * Takes a slot (waiting for one if all are taken), runs `prepare` (the
   * reading and decoding, so that the pool bounds the images in memory too)
   * and traces the PNG it returns on a worker thread. Once `signal` aborts, the
   * caller stops waiting for a slot, or its trace is ended; it rejects with
   * the signal's reason.
   */
  async run(prepare: () => Promise<Buffer>, options: TraceOptions, signal?: AbortSignal): Promise<string> {
    let release: () => void;
    try {
      release = await this.slots.acquire(1, signal);
    } catch (err) {
      if (!(err instanceof GateFullError)) throw err;
      // The queue ahead drains at about SECONDS_PER_TRACE per slot.
      throw new TracerBusyError(Math.ceil((err.waitingAhead * SECONDS_PER_TRACE) / this.size));
    }
    try {
      const png = await prepare();
      signal?.throwIfAborted();
      return await this.trace(png, options, signal);
    } finally {
      release();
    }
  }

  /** Ends the idle workers (a busy one is ended when its trace is done and it idles out). */
  async close(): Promise<void> {
    const idle = this.idle.splice(0);
    await Promise.all(
      idle.map((w) => {
        clearTimeout(w.idleTimer);
        return w.worker.terminate();
      }),
    );
  }

  private trace(png: Buffer, options: TraceOptions, signal: AbortSignal | undefined): Promise<string> {
    const pooled = this.idle.pop() ?? this.spawn();
    clearTimeout(pooled.idleTimer);
    pooled.worker.ref();
    this.handed++;
    return new Promise((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const settle = () => {
        clearTimeout(timer);
        pooled.onReady = undefined;
        signal?.removeEventListener('abort', onAbort);
      };
      // potrace cannot be interrupted from outside: a trace nobody waits for
      // any more, or one past its time, ends with its worker (the next trace
      // starts another). The slot is freed once the thread has stopped.
      const end = (err: unknown) => {
        settle();
        pooled.job = undefined;
        pooled.worker.removeAllListeners('message');
        void pooled.worker.terminate().finally(() => reject(err));
      };
      const onAbort = () => end(signal!.reason);
      // The trace's own time: a fresh thread's start and potrace's loading do not
      // count, or a slow start on a busy machine would refuse a small image.
      const startClock = () => {
        timer = setTimeout(() => {
          end(new UnprocessableMediaError(`the image took longer than ${this.settings.timeoutMs / 1000} s to trace`));
        }, this.settings.timeoutMs);
      };
      if (pooled.ready) startClock();
      else pooled.onReady = startClock;
      signal?.addEventListener('abort', onAbort, { once: true });
      pooled.job = {
        resolve: (svg) => {
          settle();
          resolve(svg);
        },
        reject: (err) => {
          settle();
          reject(err);
        },
      };
      // Copied, not transferred: sharp's buffers may not be detachable.
      pooled.worker.postMessage({ png, options });
    });
  }

  private spawn(): PooledWorker {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { modulePath: require.resolve('@gatsbyjs/potrace') },
      resourceLimits: { maxOldGenerationSizeMb: this.settings.maxOldGenerationSizeMb },
    });
    const pooled: PooledWorker = { worker };
    this.alive++;
    worker.on('message', (message: { svg?: string; error?: string; ready?: boolean }) => {
      if (message.ready) {
        pooled.ready = true;
        pooled.onReady?.();
        pooled.onReady = undefined;
        return;
      }
      const job = pooled.job;
      pooled.job = undefined;
      this.park(pooled);
      if (typeof message.svg === 'string') job?.resolve(message.svg);
      else job?.reject(new Error(message.error ?? 'potrace produced nothing'));
    });
    worker.on('error', (err) => {
      pooled.failure = err;
    });
    worker.on('exit', (code) => {
      this.alive--;
      clearTimeout(pooled.idleTimer);
      const at = this.idle.indexOf(pooled);
      if (at >= 0) this.idle.splice(at, 1);
      const job = pooled.job;
      pooled.job = undefined;
      job?.reject(exitError(pooled.failure, code));
    });
    return pooled;
  }

  /** Back to the idle list: it no longer keeps the process alive, and ends if nobody needs it. */
  private park(pooled: PooledWorker): void {
    pooled.worker.unref();
    pooled.idleTimer = setTimeout(() => {
      const at = this.idle.indexOf(pooled);
      if (at >= 0) this.idle.splice(at, 1);
      void pooled.worker.terminate();
    }, this.settings.idleMs);
    pooled.idleTimer.unref();
    this.idle.push(pooled);
  }
}

function exitError(failure: Error | undefined, code: number): Error {
  // The image's doing, and the same again on any retry: refused like an unreadable one.
  if ((failure as { code?: string } | undefined)?.code === 'ERR_WORKER_OUT_OF_MEMORY') {
    return new UnprocessableMediaError('the image is too complex to trace');
  }
  return failure ?? new Error(`trace worker exited (${code})`);
}

/** The process's traces (see TRACE_CONCURRENCY). */
export const tracePool = new TracePool(TRACE_CONCURRENCY);
