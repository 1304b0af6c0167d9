import { executorFor, maxTimeoutOf, timeoutOf } from '../registry';
import { MEDIA_MAX_TIMEOUT_MS, PROVIDER_MAX_TIMEOUT_MS } from '../timeouts';
import type { NodeContext, NodeValue } from '../types';
import { NodeFailure } from '../types';
import { centredCrop } from './change-aspect-ratio';

const text = (value: unknown): NodeValue => ({ type: typeof value === 'string' ? 'text' : 'data', value });

function ctx(type: string, over: Partial<NodeContext> = {}): NodeContext {
  return {
    runId: 'r',
    nodeId: 'n',
    nodeType: type as NodeContext['nodeType'],
    attempt: 0,
    params: {},
    inputs: {},
    runInput: undefined,
    signal: new AbortController().signal,
    assets: { read: jest.fn(), store: jest.fn() },
    outboundAllowList: [],
    ...over,
  };
}

const run = (type: string, over: Partial<NodeContext> = {}) => executorFor(type).execute(ctx(type, over));

test('text_input: the given string, else params.default, else empty', async () => {
  expect((await run('text_input', { runInput: 'hi' })).output).toEqual({ type: 'text', value: 'hi' });
  expect((await run('text_input', { params: { default: 'friendly' } })).output.value).toBe('friendly');
  expect((await run('text_input')).output.value).toBe('');
});

test('asset inputs pass their asset ids on as the typed list', async () => {
  const out = await run('video_input', { runInput: { asset_ids: ['a', 'b'] } });
  expect(out.output).toEqual({ type: 'videos', value: ['a', 'b'] });
});

test('prompt_concatenate joins parts with the separator (default one space)', async () => {
  const inputs = { parts: [text('a'), text('b')] };
  expect((await run('prompt_concatenate', { inputs })).output.value).toBe('a b');
  expect((await run('prompt_concatenate', { inputs, params: { separator: ' / ' } })).output.value).toBe('a / b');
});

test('text_split drops empty parts; list_selector picks by index and fails outside the list', async () => {
  const split = await run('text_split', { inputs: { text: text('x\n\n y \nz') } });
  expect(split.output).toEqual({ type: 'data', value: ['x', 'y', 'z'] });
  const picked = await run('list_selector', { inputs: { list: split.output }, params: { index: 2 } });
  expect(picked.output).toEqual({ type: 'text', value: 'z' });
  await expect(run('list_selector', { inputs: { list: split.output }, params: { index: 3 } })).rejects.toThrow(
    NodeFailure,
  );
});

test('human_review proposes prompts for text and asset ids for media', async () => {
  expect((await run('human_review', { inputs: { value: text('p') } })).review).toEqual({ prompts: ['p'] });
  const media = await run('human_review', { inputs: { value: { type: 'images', value: ['id'] } } });
  expect(media.review).toEqual({ asset_ids: ['id'] });
});

test('node types without a provider fail with provider_auth_required naming the setting', async () => {
  await expect(run('image_generation')).rejects.toMatchObject({
    reason: 'provider_auth_required',
    message: expect.stringContaining('PROVIDER_IMAGE_GENERATION'),
  });
  expect(() => executorFor('comment')).toThrow();
});

test('timeouts: params.timeout_ms overrides the per-type default', () => {
  expect(timeoutOf('generic_provider', {})).toBe(30_000);
  expect(timeoutOf('generic_provider', { timeout_ms: 250 })).toBe(250);
  expect(timeoutOf('generic_provider', { timeout_ms: -1 })).toBe(30_000);
});

test("timeouts: a stored timeout_ms past the type's maximum gets the maximum, never an overflowing timer", () => {
  expect(timeoutOf('generic_provider', { timeout_ms: 5_000_000_000 })).toBe(PROVIDER_MAX_TIMEOUT_MS);
  expect(timeoutOf('change_aspect_ratio', { timeout_ms: 3_000_000_000 })).toBe(MEDIA_MAX_TIMEOUT_MS);
  expect(maxTimeoutOf('llm')).toBe(3_600_000);
  expect(maxTimeoutOf('text_split')).toBe(60_000);
});

test('centredCrop: the largest centred box of the ratio', () => {
  expect(centredCrop(400, 200, 1, 1)).toEqual({ left: 100, top: 0, width: 200, height: 200 });
  expect(centredCrop(200, 400, 16, 9)).toEqual({ left: 0, top: 143, width: 200, height: 113 });
});
