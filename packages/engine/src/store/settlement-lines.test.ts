import { settlementLines, type RunRow } from './run-rows';

const run = { reserved_credits: 20 } as RunRow;
let n = 0;
const id = () => `id-${n++}`;

test('one charge line per node that cost something, cut where the reservation caps the cost', () => {
  const charges = [
    { nodeId: 'write', nodeType: 'llm', cost: 6 },
    { nodeId: 'draw', nodeType: 'image_generation', cost: 80 },
    { nodeId: 'speak', nodeType: 'text_to_speech', cost: 3 },
  ];
  const lines = settlementLines(run, 20, id, charges);
  expect(lines.kinds).toEqual(['release', 'charge', 'charge']);
  expect(lines.amounts).toEqual([20, -6, -14]);
  expect(lines.notes).toEqual([
    'reservation released',
    "node 'write' (llm)",
    "node 'draw' (image_generation) (80, capped at the reservation)",
  ]);
});

test('nothing reserved and nothing charged: no lines', () => {
  expect(settlementLines({ reserved_credits: 0 } as RunRow, 0, id, []).ids).toEqual([]);
});
