import { parseRouteTable } from './route-table';

test('NODE_ROUTES: type=provider[:model] entries, the model keeping its colons and slashes', () => {
  const table = parseRouteTable(' llm=openai:gpt-4o-mini , image_generation=fal:fal-ai/flux/dev:v2,transcribe=openai');
  expect([...table]).toEqual([
    ['llm', { provider: 'openai', model: 'gpt-4o-mini' }],
    ['image_generation', { provider: 'fal', model: 'fal-ai/flux/dev:v2' }],
    ['transcribe', { provider: 'openai' }],
  ]);
  expect(parseRouteTable(undefined).size).toBe(0);
});

test.each([
  ['llm', "'llm' is not type=provider[:model]"],
  ['poem=openai:gpt', "'poem' is not a node type"],
  ['llm=openai,llm=openai:x', "'llm' is routed twice"],
])('NODE_ROUTES %s is refused: %s', (text, message) => {
  expect(() => parseRouteTable(text)).toThrow(message);
});
