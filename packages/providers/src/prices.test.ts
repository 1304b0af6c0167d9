import { creditsFor, DEFAULT_PRICES, parsePriceTable } from './prices';

test('credits are the price applied to the tokens, rounded up to whole credits', () => {
  const usage = { input_tokens: 12_345, output_tokens: 6_789 };
  // 12 345 × 150 / 1M + 6 789 × 600 / 1M = 5.925
  expect(creditsFor(DEFAULT_PRICES, 'openai', 'gpt-4o-mini', usage)).toBe(6);
  expect(creditsFor(DEFAULT_PRICES, 'openai', 'gpt-4o-mini', { input_tokens: 1, output_tokens: 0 })).toBe(1);
  expect(creditsFor(DEFAULT_PRICES, 'openai', 'gpt-4o-mini', { input_tokens: 0, output_tokens: 0 })).toBe(0);
  // An unknown model takes the provider's default price.
  expect(creditsFor(DEFAULT_PRICES, 'openai', 'some-new-model', usage)).toBe(Math.ceil(30.8625 + 67.89));
});

test('PRICE_TABLE overrides and adds entries over the defaults, and is refused when malformed', () => {
  const table = parsePriceTable('{"openai:gpt-4o-mini":{"input_per_million":1000000,"output_per_million":0}}');
  expect(creditsFor(table, 'openai', 'gpt-4o-mini', { input_tokens: 3, output_tokens: 100 })).toBe(3);
  expect(table['openai:gpt-4o']).toEqual(DEFAULT_PRICES['openai:gpt-4o']);
  expect(() => parsePriceTable('nope')).toThrow('PRICE_TABLE is not JSON');
  expect(() => parsePriceTable('{"gpt":{"input_per_million":1,"output_per_million":1}}')).toThrow(/provider:model/);
  expect(() => parsePriceTable('{"openai:x":{"input_per_million":-1,"output_per_million":1}}')).toThrow(/PRICE_TABLE/);
});

test('prices per image, second and thousand characters add up with token prices', () => {
  const table = parsePriceTable(
    '{"fal:flux":{"per_image":25,"per_megapixel":2},"eleven:v2":{"per_thousand_characters":300,"per_second":0.5}}',
  );
  expect(creditsFor(table, 'fal', 'flux', { images: 2, megapixels: 2.1 })).toBe(55);
  expect(creditsFor(table, 'eleven', 'v2', { characters: 1001, seconds: 3 })).toBe(302);
  // A unit the price does not name is free.
  expect(creditsFor(table, 'fal', 'flux', { seconds: 100 })).toBe(0);
});
