import { AdmissionGate, GateFullError } from './admission-gate';

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

describe('AdmissionGate', () => {
  test('reserves at once within its total; beyond it waits until bytes are given back', async () => {
    const gate = new AdmissionGate(100, 10);
    const releaseA = await gate.acquire(60);
    const b = gate.acquire(50);
    expect(await settled(b)).toBe(false);
    expect([gate.inUse, gate.waiting]).toEqual([60, 1]);
    releaseA();
    const releaseB = await b;
    expect([gate.inUse, gate.waiting]).toEqual([50, 0]);
    releaseB();
    releaseB(); // twice gives back once
    expect(gate.inUse).toBe(0);
  });

  test('first come, first served: a small caller does not overtake a large one waiting', async () => {
    const gate = new AdmissionGate(100, 10);
    const releaseA = await gate.acquire(60);
    const large = gate.acquire(80);
    const small = gate.acquire(10); // would fit now, but the large one came first
    expect(await settled(small)).toBe(false);
    releaseA();
    (await large)();
    (await small)();
    expect(gate.inUse).toBe(0);
  });

  test('a caller asking for more than the whole capacity runs alone rather than never', async () => {
    const gate = new AdmissionGate(100, 10);
    const release = await gate.acquire(500);
    expect(gate.inUse).toBe(100);
    release();
    expect(gate.inUse).toBe(0);
  });

  test('refuses a caller once `maxWaiting` wait already', async () => {
    const gate = new AdmissionGate(100, 1);
    const release = await gate.acquire(100);
    const waiting = gate.acquire(10);
    await expect(gate.acquire(10)).rejects.toEqual(new GateFullError(1));
    await expect(gate.acquire(10)).rejects.toMatchObject({ waitingAhead: 1 });
    release();
    (await waiting)();
  });

  test('a caller that stops waiting leaves the queue, and those behind it that fit go on', async () => {
    const gate = new AdmissionGate(100, 10);
    const releaseA = await gate.acquire(60);
    const leaving = new AbortController();
    const large = gate.acquire(80, leaving.signal);
    const small = gate.acquire(30);
    const reason = new Error('client gone');
    leaving.abort(reason);
    await expect(large).rejects.toBe(reason);
    (await small)();
    releaseA();
    expect([gate.inUse, gate.waiting]).toEqual([0, 0]);
  });
});
