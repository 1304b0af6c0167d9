import { UploadMemory, UploadsBusyError } from './upload-memory';

/** Whether a promise has settled by the time pending callbacks have run. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(
    () => (done = true),
    () => (done = true),
  );
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

describe('UploadMemory', () => {
  test('reserves at once within its total; beyond it waits until bytes are given back', async () => {
    const memory = new UploadMemory(100, 10);
    const releaseA = await memory.reserve(60);
    const b = memory.reserve(50);
    expect(await settled(b)).toBe(false);
    expect([memory.reserved, memory.queued]).toEqual([60, 1]);
    releaseA();
    const releaseB = await b;
    expect([memory.reserved, memory.queued]).toEqual([50, 0]);
    releaseB();
    releaseB(); // twice gives back once
    expect(memory.reserved).toBe(0);
  });

  test('first come, first served: a small upload does not overtake a large one waiting', async () => {
    const memory = new UploadMemory(100, 10);
    const releaseA = await memory.reserve(60);
    const large = memory.reserve(80);
    const small = memory.reserve(10); // would fit now, but the large one came first
    expect(await settled(small)).toBe(false);
    releaseA();
    (await large)();
    (await small)();
    expect(memory.reserved).toBe(0);
  });

  test('an upload larger than the whole budget runs alone rather than never', async () => {
    const memory = new UploadMemory(100, 10);
    const release = await memory.reserve(500);
    expect(memory.reserved).toBe(100);
    release();
    expect(memory.reserved).toBe(0);
  });

  test('refuses a caller once `maxWaiting` wait already', async () => {
    const memory = new UploadMemory(100, 1);
    const release = await memory.reserve(100);
    const waiting = memory.reserve(10);
    await expect(memory.reserve(10)).rejects.toBeInstanceOf(UploadsBusyError);
    release();
    (await waiting)();
  });

  test('a caller that stops waiting leaves the queue, and those behind it that fit go on', async () => {
    const memory = new UploadMemory(100, 10);
    const releaseA = await memory.reserve(60);
    const leaving = new AbortController();
    const large = memory.reserve(80, leaving.signal);
    const small = memory.reserve(30);
    const reason = new Error('client gone');
    leaving.abort(reason);
    await expect(large).rejects.toBe(reason);
    (await small)();
    releaseA();
    expect([memory.reserved, memory.queued]).toEqual([0, 0]);
  });
});
