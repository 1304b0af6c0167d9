import type { Flow } from '@weft/contracts';
import { checkAppAgainstFlow } from './app-rules';

const flow: Flow = {
  nodes: [
    { id: 'topic', type: 'text_input' },
    { id: 'brand', type: 'brand_system_input', required: false },
    { id: 'note', type: 'group' },
    { id: 'join', type: 'prompt_concatenate', inputs: { parts: ['topic'] } },
  ],
  outputs: [{ id: 'join', type: 'text', description: '' }],
};

const topic = { id: 'topic', type: 'text' as const, name: 'Topic', required: true };

describe('checkAppAgainstFlow', () => {
  it('accepts inputs of the matching kind and any executable node as output', () => {
    const issues = checkAppAgainstFlow(
      flow,
      [topic, { id: 'brand', type: 'brand', name: 'Brand', required: false }],
      [
        { id: 'join', type: 'text', description: '' },
        { id: 'topic', type: 'text', description: 'echo' },
      ],
    );
    expect(issues).toEqual([]);
  });

  it('names each offending entry', () => {
    const issues = checkAppAgainstFlow(
      flow,
      [
        { id: 'join', type: 'text', name: 'J', required: true },
        { id: 'brand', type: 'image', name: 'B', required: true, min_selections: 2, max_selections: 1 },
      ],
      [{ id: 'note', type: 'text', description: '' }],
    );
    expect(issues.map((i) => [i.type, i.loc])).toEqual([
      ['unknown_input', ['body', 'inputs', 0, 'id']],
      ['input_type_mismatch', ['body', 'inputs', 1, 'type']],
      ['value_error', ['body', 'inputs', 1, 'min_selections']],
      ['missing_input', ['body', 'inputs']],
      ['unknown_node', ['body', 'outputs', 0, 'id']],
    ]);
    expect(issues[1]!.msg).toBe("Input node 'brand' is a brand_system_input; its app input type must be 'brand'");
  });
});
