import { readFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { analyseImage, UnprocessableMediaError } from './image';
import { traceToSvg } from './vectorize';

// An HEVC-coded HEIF, which prebuilt libvips reads the size of but cannot decode.
const heic = readFileSync(path.join(__dirname, '..', 'fixtures', 'hevc-120x80.heic'));
const limits = { maxPixels: 268_402_689 };

test('the fixture is one sharp cannot decode by itself', async () => {
  expect(await sharp(heic).metadata()).toMatchObject({ format: 'heif', compression: 'hevc', width: 120 });
  await expect(sharp(heic).png().toBuffer()).rejects.toThrow(/HEVC|libde265/);
});

test('an HEVC HEIF gets a preview, its size and a blur hash', async () => {
  const { preview, metadata, blurHash } = await analyseImage(heic, limits);
  expect(metadata).toMatchObject({ width: 120, height: 80, aspect_ratio: '3:2', format: 'heif' });
  expect(blurHash).toMatch(/^[0-9A-Za-z#$%*+,\-.:;=?@[\]^_{|}~]{20,}$/);
  const { data, info } = await sharp(preview).raw().toBuffer({ resolveWithObject: true });
  expect([info.width, info.height]).toEqual([120, 80]);
  // The middle is the blue disc, a corner the red ground: real pixels, not a blank.
  const at = (x: number, y: number) =>
    Array.from(data.subarray((y * 120 + x) * info.channels, (y * 120 + x) * info.channels + 3));
  const [r, , b] = at(60, 40);
  expect(b).toBeGreaterThan(150);
  expect(r).toBeLessThan(100);
  const [cornerRed, , cornerBlue] = at(3, 3);
  expect(cornerRed).toBeGreaterThan(150);
  expect(cornerBlue).toBeLessThan(100);
});

test('the pixel limit applies before an HEVC HEIF is decoded', async () => {
  await expect(analyseImage(heic, { maxPixels: 120 * 80 - 1 })).rejects.toBeInstanceOf(UnprocessableMediaError);
});

test('svg=true traces an HEVC HEIF too', async () => {
  expect(await traceToSvg(heic, limits)).toMatch(/^<svg[\s\S]*<path/);
});
