import { Writable } from 'node:stream';
import pino from 'pino';
import { logContextOptions, withLogContext } from './log-context';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  return { logger: pino({ base: undefined, timestamp: false, ...logContextOptions }, sink), lines };
}

test('a line written inside a context carries its fields; outside, nothing is added', () => {
  const { logger, lines } = capture();
  logger.info('before');
  withLogContext({ runId: 'run-1', nodeId: 'node-a' }, () => logger.warn({ reason: 'x' }, 'inside'));
  logger.info('after');
  expect(lines).toEqual([
    { level: 30, msg: 'before' },
    { level: 40, runId: 'run-1', nodeId: 'node-a', reason: 'x', msg: 'inside' },
    { level: 30, msg: 'after' },
  ]);
});

test("the line's own fields win, and neither the line's object nor the context is modified", () => {
  const { logger, lines } = capture();
  const context = { reqId: 'from-context' };
  const fields = { reqId: 'from-line', status: 201 };
  withLogContext(context, () => {
    logger.info(fields, 'one');
    logger.info('two');
  });
  expect(lines.map((l) => l.reqId)).toEqual(['from-line', 'from-context']);
  expect(lines[1]).not.toHaveProperty('status');
  expect(context).toEqual({ reqId: 'from-context' });
  expect(fields).toEqual({ reqId: 'from-line', status: 201 });
});

test('the context follows async work it starts, and concurrent contexts stay apart', async () => {
  const { logger, lines } = capture();
  const work = (runId: string, delayMs: number) =>
    withLogContext({ runId }, async () => {
      await new Promise((r) => setTimeout(r, delayMs));
      logger.info('after a timer');
      await Promise.resolve();
      setImmediate(() => logger.info('in a callback'));
      await new Promise((r) => setImmediate(r));
    });
  await Promise.all([work('slow', 20), work('fast', 1)]);
  expect(lines.map((l) => `${l.runId} ${l.msg}`).sort()).toEqual([
    'fast after a timer',
    'fast in a callback',
    'slow after a timer',
    'slow in a callback',
  ]);
});

test('an error logged alone keeps its serialisation and gains the context', () => {
  const { logger, lines } = capture();
  withLogContext({ assetId: 'asset-1' }, () => logger.error(new Error('boom')));
  expect(lines[0]).toMatchObject({ assetId: 'asset-1', msg: 'boom', err: { type: 'Error', message: 'boom' } });
});
