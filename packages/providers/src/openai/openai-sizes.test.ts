import { imageSize, videoSize } from './openai-sizes';

test.each([
  ['gpt-image-1', 1, '1024x1024'],
  ['gpt-image-1', 16 / 9, '1536x1024'],
  ['gpt-image-1', 9 / 16, '1024x1536'],
  ['gpt-image-1', 6 / 5, '1024x1024'],
  ['dall-e-3', 16 / 9, '1792x1024'],
  ['dall-e-3', 2 / 3, '1024x1792'],
  ['dall-e-2', 16 / 9, '1024x1024'],
  ['some-compatible-model', 3 / 2, '1536x1024'],
])('%s at the ratio %d draws %s', (model, ratio, size) => {
  expect(imageSize(model, ratio)).toBe(size);
});

test('a video is landscape unless taller than wide', () => {
  expect(videoSize(16 / 9)).toBe('1280x720');
  expect(videoSize(1)).toBe('1280x720');
  expect(videoSize(3 / 4)).toBe('720x1280');
});
