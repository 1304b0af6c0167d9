import { GroupedCalls } from './grouped-calls';

/** A call that records its groups and answers when released. */
function recorder() {
  const groups: string[][] = [];
  const pending: (() => void)[] = [];
  const call = (inputs: string[]) =>
    new Promise<string[]>((resolve, reject) => {
      groups.push(inputs);
      pending.push(() =>
        inputs.includes('bad') ? reject(new Error('bad group')) : resolve(inputs.map((i) => `${i}!`)),
      );
    });
  const releaseAll = async () => {
    while (pending.length > 0) {
      pending.shift()!();
      await new Promise((r) => setImmediate(r));
    }
  };
  return { groups, call, releaseAll };
}

test('a call that finds none in flight goes at once; the ones arriving meanwhile go together after it', async () => {
  const r = recorder();
  const grouped = new GroupedCalls({ call: r.call, max: 10 });
  const first = grouped.submit('a');
  expect(r.groups).toEqual([['a']]);
  const rest = ['b', 'c', 'd'].map((x) => grouped.submit(x));
  expect(r.groups).toHaveLength(1);
  await r.releaseAll();
  expect(await Promise.all([first, ...rest])).toEqual(['a!', 'b!', 'c!', 'd!']);
  expect(r.groups).toEqual([['a'], ['b', 'c', 'd']]);
});

test('a group holds at most `max` inputs, and never two of one key', async () => {
  const r = recorder();
  const grouped = new GroupedCalls({ call: r.call, max: 2, key: (x: string) => x[0]! });
  const all = ['a1', 'b1', 'a2', 'c1', 'b2'].map((x) => grouped.submit(x));
  await r.releaseAll();
  expect(await Promise.all(all)).toEqual(['a1!', 'b1!', 'a2!', 'c1!', 'b2!']);
  // a1 went alone; then b1 with a2 (two at most), then c1 with b2.
  expect(r.groups).toEqual([['a1'], ['b1', 'a2'], ['c1', 'b2']]);
  const keyed = new GroupedCalls({ call: r.call, max: 10, key: (x: string) => x[0]! });
  r.groups.length = 0;
  const more = ['x1', 'y1', 'y2', 'y3', 'z1'].map((x) => keyed.submit(x));
  await r.releaseAll();
  await Promise.all(more);
  expect(r.groups).toEqual([['x1'], ['y1', 'z1'], ['y2'], ['y3']]);
});

test('when a group fails, each of its inputs is called alone and gets its own result or error', async () => {
  const r = recorder();
  const grouped = new GroupedCalls({ call: r.call, max: 10 });
  const first = grouped.submit('a');
  const ok = grouped.submit('b');
  const bad = grouped.submit('bad').then(
    () => 'resolved',
    (err: Error) => err.message,
  );
  await r.releaseAll();
  expect(await first).toBe('a!');
  expect(await ok).toBe('b!');
  expect(await bad).toBe('bad group');
  expect(r.groups).toEqual([['a'], ['b', 'bad'], ['b'], ['bad']]);
});

test('one input that fails every call holding it costs a call per half, not one per input', async () => {
  const r = recorder();
  const grouped = new GroupedCalls({ call: r.call, max: 64 });
  const first = grouped.submit('first');
  const inputs = Array.from({ length: 64 }, (_, i) => (i === 41 ? 'bad' : `i${i}`));
  const outcomes = inputs.map((x) =>
    grouped.submit(x).then(
      (out) => out,
      (err: Error) => err.message,
    ),
  );
  await r.releaseAll();
  await first;
  expect(await Promise.all(outcomes)).toEqual(inputs.map((x) => (x === 'bad' ? 'bad group' : `${x}!`)));
  // The group of 64, then two halves at each of six levels.
  expect(r.groups.slice(1)).toHaveLength(1 + 2 * 6);
  expect(r.groups.filter((g) => g.length === 1 && g[0] === 'bad')).toHaveLength(1);
});

test('a failure no input can escape is given to the whole group at once', async () => {
  const r = recorder();
  const grouped = new GroupedCalls({
    call: r.call,
    max: 10,
    retryApart: (err) => (err as Error).message !== 'bad group',
  });
  const first = grouped.submit('a');
  const rest = ['b', 'bad', 'c'].map((x) =>
    grouped.submit(x).then(
      () => 'resolved',
      (err: Error) => err.message,
    ),
  );
  await r.releaseAll();
  await first;
  expect(await Promise.all(rest)).toEqual(['bad group', 'bad group', 'bad group']);
  expect(r.groups).toEqual([['a'], ['b', 'bad', 'c']]);
});
