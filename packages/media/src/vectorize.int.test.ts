import { waitFor } from '@weft/testing';
import sharp from 'sharp';
import { UnprocessableMediaError } from './image';
import { SvgCache } from './svg-cache';
import { TracePool, TracerBusyError, tracePool } from './trace-pool';
import { traceToSvg } from './vectorize';

const limits = { maxPixels: 268_402_689 };

// Some tests trace 2048 px of noise: seconds of potrace alone, far longer
// while other processes hold both cores.
jest.setTimeout(120_000);

/** Seeded noise (the same every run), blurred by `sigma` (0: none) into blobs potrace makes paths of. */
async function noisePng(size: number, sigma: number, seed = 1): Promise<Buffer> {
  const raw = Buffer.alloc(size * size);
  let x = seed;
  for (let i = 0; i < raw.length; i++) {
    x = (Math.imul(x, 1_103_515_245) + 12_345) >>> 0;
    raw[i] = x >>> 24;
  }
  let image = sharp(raw, { raw: { width: size, height: size, channels: 1 } });
  if (sigma > 0) image = image.blur(sigma);
  return image.png().toBuffer();
}

/** A black disc on white: what the tracer is for. */
function disc(size = 200): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}">
    <rect width="100%" height="100%" fill="#fff"/><circle cx="${size / 2}" cy="${size / 2}" r="${size / 3}"/></svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

afterAll(() => tracePool.close());

/** A promise and the function that settles it, to hold a step until the test lets it go on. */
function gate(): { opened: Promise<void>; open(): void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

/** A caller's rejection, for the tests that check which one it was. */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection');
}

describe('traceToSvg', () => {
  test('traces a raster image into SVG paths', async () => {
    expect(await traceToSvg(await disc(), limits)).toMatch(/^<svg[\s\S]*<path[\s\S]*<\/svg>\s*$/);
  });

  test('bytes that are no image are an UnprocessableMediaError', async () => {
    await expect(traceToSvg(Buffer.from('not an image at all'), limits)).rejects.toBeInstanceOf(
      UnprocessableMediaError,
    );
  });

  test('a truncated image is an UnprocessableMediaError', async () => {
    const png = await disc(300);
    await expect(traceToSvg(png.subarray(0, png.length >> 1), limits)).rejects.toBeInstanceOf(UnprocessableMediaError);
  });

  test('an image over the pixel limit is an UnprocessableMediaError', async () => {
    await expect(traceToSvg(await disc(200), { maxPixels: 200 * 200 - 1 })).rejects.toBeInstanceOf(
      UnprocessableMediaError,
    );
  });

  test('the event loop keeps turning while a large image is traced', async () => {
    // 2048 px of blurred noise: decoded, scaled to 1024 px, and about a second
    // of potrace (a thousand closed paths), which used to hold this thread.
    const input = await noisePng(2048, 2, 7);
    const started = performance.now();
    let last = started;
    let longestGap = 0;
    let ticks = 0;
    const timer = setInterval(() => {
      const now = performance.now();
      longestGap = Math.max(longestGap, now - last);
      last = now;
      ticks++;
    }, 5);
    try {
      const svg = await traceToSvg(input, limits);
      // Up to the end too: a trace on this thread would resolve right after blocking it.
      longestGap = Math.max(longestGap, performance.now() - last);
      expect(svg).toMatch(/^<svg[\s\S]*<path/);
    } finally {
      clearInterval(timer);
    }
    const tracedMs = performance.now() - started;
    // The timer ran all along. A trace on this thread holds the loop for most
    // of the trace (potrace is most of it); the bound is relative to the
    // trace's duration, so a busy machine that slows both, or deschedules
    // this thread for a while, does not change the verdict.
    expect(ticks).toBeGreaterThan(10);
    expect(longestGap).toBeLessThan(tracedMs / 2);
  });

  test('the same image asked for again, or twice at once, is traced once', async () => {
    const input = await noisePng(256, 3, 11);
    const before = tracePool.traced;
    const [a, b] = await Promise.all([traceToSvg(input, limits), traceToSvg(Buffer.from(input), limits)]);
    const c = await traceToSvg(input, limits);
    expect(tracePool.traced - before).toBe(1);
    expect(b).toBe(a);
    expect(c).toBe(a);
    // Another pixel limit may decide otherwise: not the same entry.
    await traceToSvg(input, { maxPixels: limits.maxPixels - 1 });
    expect(tracePool.traced - before).toBe(2);
  });
});

describe('traceToSvg with a source read in its turn', () => {
  test('a waiting caller holds no image: its source is read once the tracer is free for it', async () => {
    const png = await disc(64);
    const first = gate();
    const a = traceToSvg({ key: `a-${Math.random()}`, read: () => first.opened.then(() => png) }, limits);
    const readB = jest.fn(async () => png);
    const b = traceToSvg({ key: `b-${Math.random()}`, read: readB }, limits);
    await waitFor('b to queue', () => tracePool.queued === 1);
    expect(readB).not.toHaveBeenCalled();
    first.open();
    expect(await a).toMatch(/^<svg/);
    expect(await b).toMatch(/^<svg/);
    expect(readB).toHaveBeenCalledTimes(1);
  });

  test('a failed read reaches every caller as it was, and is not kept', async () => {
    const key = `gone-${Math.random()}`;
    const failure = new Error('the object is gone');
    const read = jest.fn(() => Promise.reject(failure));
    const results = await Promise.allSettled([traceToSvg({ key, read }, limits), traceToSvg({ key, read }, limits)]);
    expect(results).toEqual([
      { status: 'rejected', reason: failure },
      { status: 'rejected', reason: failure },
    ]);
    expect(read).toHaveBeenCalledTimes(1);
    await expect(traceToSvg({ key, read: async () => disc(64) }, limits)).resolves.toMatch(/^<svg/);
  });

  test('a caller that stops waiting leaves; the trace goes on while another caller waits for it', async () => {
    const png = await disc(64);
    const held = gate();
    const key = `shared-${Math.random()}`;
    const read = jest.fn(() => held.opened.then(() => png));
    const leaving = new AbortController();
    const a = traceToSvg({ key, read }, limits, leaving.signal);
    const b = traceToSvg({ key, read }, limits, new AbortController().signal);
    const reason = new Error('client gone');
    leaving.abort(reason);
    expect(await rejection(a)).toBe(reason);
    held.open();
    expect(await b).toMatch(/^<svg/);
    expect(read).toHaveBeenCalledTimes(1);
  });

  test('once every caller has left, the trace is ended, and a new caller starts afresh', async () => {
    // Blurred noise, as in the event-loop test: seconds of potrace within the heap.
    const noise = await noisePng(2048, 2, 5);
    const key = `abandoned-${Math.random()}`;
    const read = jest.fn(async () => noise);
    const [one, two] = [new AbortController(), new AbortController()];
    const handed = tracePool.traced;
    const a = traceToSvg({ key, read }, limits, one.signal);
    const b = traceToSvg({ key, read }, limits, two.signal);
    await waitFor('the trace handed to a worker', () => tracePool.traced === handed + 1);
    // Still running here: seconds of potrace.
    one.abort(new Error('gone'));
    expect(tracePool.running).toBe(1); // the other caller still waits for it
    two.abort(new Error('gone too'));
    await Promise.allSettled([a, b]);
    // The worker was ended with its trace, not left to finish it (an idle one lives on for 30 s).
    await waitFor('the trace ended', () => tracePool.running === 0);
    expect(tracePool.workers).toBe(0);
    // Nothing was kept under the key: the next caller reads and traces again.
    await expect(traceToSvg({ key, read: async () => disc(64) }, limits)).resolves.toMatch(/^<svg/);
    expect(read).toHaveBeenCalledTimes(1);
  });
});

describe('TracePool', () => {
  test('runs at most `size` traces at once; the others wait their turn, first come first served', async () => {
    const pool = new TracePool(2);
    const png = await disc(64);
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const started: number[] = [];
    const runs = [0, 1, 2, 3, 4].map((i) =>
      pool.run(async () => {
        started.push(i);
        await gate;
        return png;
      }, {}),
    );
    // The first two hold their slots (decoding, say): the other three wait, not started.
    await waitFor('two running, three queued', () => pool.running === 2 && pool.queued === 3);
    expect(started).toEqual([0, 1]);
    expect([pool.running, pool.queued]).toEqual([2, 3]);
    open();
    const svgs = await Promise.all(runs);
    expect(svgs.every((svg) => svg.startsWith('<svg'))).toBe(true);
    expect(started).toEqual([0, 1, 2, 3, 4]);
    expect([pool.running, pool.queued]).toEqual([0, 0]);
    await pool.close();
  });

  test('a failed preparation frees its slot and reaches the caller as it was', async () => {
    const pool = new TracePool(1);
    const failure = new UnprocessableMediaError('corrupt');
    await expect(pool.run(() => Promise.reject(failure), {})).rejects.toBe(failure);
    expect(await pool.run(() => disc(64), {})).toMatch(/^<svg/);
    await pool.close();
  });

  test('a trace that outgrows the worker heap is refused as too complex, and the pool goes on', async () => {
    const pool = new TracePool(1, { maxOldGenerationSizeMb: 16 });
    const noise = await noisePng(1024, 0, 3);
    await expect(pool.run(async () => noise, { turdSize: 0 })).rejects.toThrow(
      new UnprocessableMediaError('the image is too complex to trace'),
    );
    expect(await pool.run(() => disc(64), {})).toMatch(/^<svg/);
    await pool.close();
  });
});

describe('TracePool limits', () => {
  test('refuses a caller beyond its queue with a Retry-After; those queued are served', async () => {
    const pool = new TracePool(1, { maxQueued: 2 });
    const png = await disc(64);
    const held = gate();
    const runs = [0, 1, 2].map(() =>
      pool.run(async () => {
        await held.opened;
        return png;
      }, {}),
    );
    await waitFor('one running, two queued', () => pool.running === 1 && pool.queued === 2);
    const busy = await rejection(pool.run(async () => png, {}));
    expect(busy).toBeInstanceOf(TracerBusyError);
    expect((busy as TracerBusyError).retryAfterSeconds).toBeGreaterThan(0);
    held.open();
    expect((await Promise.all(runs)).every((svg) => svg.startsWith('<svg'))).toBe(true);
    await pool.close();
  });

  test('a caller that stops waiting for a slot leaves the queue and is never prepared', async () => {
    const pool = new TracePool(1);
    const png = await disc(64);
    const held = gate();
    const first = pool.run(async () => {
      await held.opened;
      return png;
    }, {});
    const prepare = jest.fn(async () => png);
    const leaving = new AbortController();
    const second = pool.run(prepare, {}, leaving.signal);
    await waitFor('the second queued', () => pool.queued === 1);
    const reason = new Error('client gone');
    leaving.abort(reason);
    expect(await rejection(second)).toBe(reason);
    expect(pool.queued).toBe(0);
    held.open();
    expect(await first).toMatch(/^<svg/);
    expect(prepare).not.toHaveBeenCalled();
    expect([pool.running, pool.traced]).toEqual([0, 1]);
    await pool.close();
  });

  test('a trace past its time is ended with its worker and refused; the pool goes on', async () => {
    // 1024 px of noise takes seconds (and some 450 MB, allowed here so that the
    // time runs out first); a small disc far less. The clock starts once the
    // worker is up, so a slow start of the fresh one does not count against it.
    const pool = new TracePool(1, { timeoutMs: 1000, maxOldGenerationSizeMb: 1024 });
    const noise = await noisePng(1024, 0, 9);
    const err = await rejection(pool.run(async () => noise, { turdSize: 0 }));
    expect(err).toEqual(new UnprocessableMediaError('the image took longer than 1 s to trace'));
    expect(pool.workers).toBe(0);
    expect(await pool.run(() => disc(64), {})).toMatch(/^<svg/);
    await pool.close();
  });
});

describe('SvgCache', () => {
  test('keeps the most recently used within its size, and nothing past its age', () => {
    let now = 0;
    const cache = new SvgCache(40, 1000, () => now);
    cache.set('a', 'x'.repeat(10));
    cache.set('b', 'y'.repeat(10));
    cache.set('c', 'z'.repeat(10));
    expect(cache.get('a')).toBe('x'.repeat(10)); // a is now the most recent
    cache.set('d', 'w'.repeat(10));
    cache.set('e', 'v'.repeat(10)); // 50 > 40: b, the least recent, goes
    expect(cache.get('b')).toBeUndefined();
    expect(cache.size).toBe(4);
    cache.set('big', 'u'.repeat(11)); // over a quarter of the budget: not kept
    expect(cache.get('big')).toBeUndefined();
    now = 1000;
    expect(cache.get('a')).toBeUndefined();
  });
});
