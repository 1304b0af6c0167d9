import { blackPng, jpegDeclaring } from '@weft/testing';
import sharp from 'sharp';
import { definitionOf, maxTimeoutOf, timeoutOf } from '../registry';
import { MEDIA_MAX_TIMEOUT_MS, PROVIDER_MAX_TIMEOUT_MS } from '../timeouts';
import type { NodeContext, NodeValue, ProducedFile, StoredAsset } from '../types';
import { NodeFailure } from '../types';
import { centredCrop } from './change-aspect-ratio';
import { executeInTest, NO_ASSETS, testContext } from './test-context';

const text = (value: unknown): NodeValue => ({ type: typeof value === 'string' ? 'text' : 'data', value });

const run = executeInTest;

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

test('node types no adapter serves fail with provider_auth_required saying what is missing', async () => {
  await expect(run('image_generation', { nodeId: 'draw' })).rejects.toMatchObject({
    reason: 'provider_auth_required',
    message: "Node 'draw' (image_generation) is served by a provider adapter, not configured in this deployment",
  });
  expect(() => definitionOf('comment')).toThrow();
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

describe('change_aspect_ratio and the pixel limit', () => {
  /** Node context whose `image` port holds one asset with these bytes; what it stores is collected. */
  function cropping(bytes: Buffer, over: Partial<NodeContext> = {}) {
    const stored: ProducedFile[] = [];
    const asset: StoredAsset = {
      id: 'a1',
      mediaType: 'image',
      contentType: 'image/png',
      extension: 'png',
      filename: 'a1.png',
      sizeBytes: bytes.length,
      bytes,
    };
    const assets = {
      ...NO_ASSETS,
      read: jest.fn(async () => asset),
      store: jest.fn(async (file: ProducedFile) => {
        stored.push(file);
        return `out-${stored.length}`;
      }),
    };
    const context = testContext('change_aspect_ratio', {
      nodeId: 'square',
      params: { aspect_ratio: '1:1' },
      inputs: { image: { type: 'images', value: ['a1'] } },
      assets,
      ...over,
    });
    return { run: () => definitionOf('change_aspect_ratio').execute(context), stored };
  }

  it.each([
    ['a 16000×16000 JPEG (EXIF orientation 6)', () => jpegDeclaring(16000, 16000, 6)],
    ['a 16000×16000 JPEG', () => jpegDeclaring(16000, 16000)],
    ['a 16000×16000 PNG', async () => blackPng(16000, 16000)],
  ])('refuses %s over the 100,000,000-pixel limit with invalid_input naming the port', async (_name, make) => {
    const { run, stored } = cropping(await make());
    const failure = await run().catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(NodeFailure);
    expect(failure).toMatchObject({ reason: 'invalid_input' });
    expect((failure as Error).message).toMatch(/'square'.*'image'.*16000×16000.*100000000 pixels/);
    expect(stored).toEqual([]);
  });

  it('refuses bytes that are no image with invalid_input naming the port and the asset', async () => {
    await expect(cropping(Buffer.from('not an image')).run()).rejects.toMatchObject({
      reason: 'invalid_input',
      message: "Node 'square': the image at input 'image' (asset a1) cannot be read",
    });
  });

  it('applies the limit it is given, rotated or not, and crops what is within it', async () => {
    const portrait = await sharp({ create: { width: 300, height: 200, channels: 3, background: 'red' } })
      .jpeg()
      .withMetadata({ orientation: 6 })
      .toBuffer();
    await expect(cropping(portrait, { imageLimits: { maxPixels: 300 * 200 - 1 } }).run()).rejects.toMatchObject({
      reason: 'invalid_input',
      message: expect.stringMatching(/59999 pixels/),
    });
    const within = cropping(portrait, { imageLimits: { maxPixels: 300 * 200 } });
    await within.run();
    expect(within.stored.map((f) => f.metadata)).toEqual([{ width: 200, height: 200, aspect_ratio: '1:1' }]);
  });
});
