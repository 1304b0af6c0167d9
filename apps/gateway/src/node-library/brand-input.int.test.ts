import fs from 'node:fs';
import type { Flow } from '@weft/contracts';
import request from 'supertest';
import { postAgent } from '../testing/catalog-fixtures';
import { startRunStack, type RunStack } from '../testing/test-runs';
import { solid } from '../testing/media/generate';
import { resultOf, runFlow, uploadAsset, type Org } from '../testing/media/runs';

// brand_system_input: the brand checked when the run is created (422 naming
// where in the value), normalised by the node.

let stack: RunStack;
let org: Org;
let logo: string;
let font: string;
let pdf: string;
let agentId: string;

const brandFlow = (): Flow => ({
  nodes: [{ id: 'brand', type: 'brand_system_input' }],
  outputs: [{ id: 'brand', type: 'data', description: 'The brand' }],
});

beforeAll(async () => {
  stack = await startRunStack();
  org = await stack.gw.createOrg('Brand', 100);
  logo = await uploadAsset(stack.gw, org.apiKey, await solid(40, 20, '#ff0000'), 'logo.png');
  font = await uploadAsset(
    stack.gw,
    org.apiKey,
    fs.readFileSync('/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf'),
    'serif.ttf',
  );
  pdf = await uploadAsset(
    stack.gw,
    org.apiKey,
    Buffer.from('%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n'),
    'doc.pdf',
  );
  agentId = (await postAgent(stack.gw.app, org.apiKey, { flow: brandFlow() })).id;
});
afterAll(() => stack.close());

const create = (value: unknown, apiKey = org.apiKey) =>
  request(stack.gw.app)
    .post('/runs')
    .set('X-Api-Key', apiKey)
    .send({ agent_id: agentId, inputs: [{ id: 'brand', value }] });

test('a brand given as an object comes out normalised: #rrggbb colours, lower-case ids, defaults', async () => {
  const run = await runFlow(stack.gw, org.apiKey, brandFlow(), [
    { id: 'brand', value: { name: 'Acme', colors: ['#ABC', 'ff8800'], fonts: [font.toUpperCase()], logo } },
  ]);
  expect(run.status).toBe('completed');
  expect(resultOf(run, 'brand')).toEqual({
    name: 'Acme',
    colors: ['#aabbcc', '#ff8800'],
    fonts: [font],
    logo,
    tone: null,
  });
});

test('a brand given as JSON text is parsed', async () => {
  const run = await runFlow(stack.gw, org.apiKey, brandFlow(), [
    { id: 'brand', value: JSON.stringify({ name: 'Acme', colors: ['#000000'], tone: 'dry' }) },
  ]);
  expect(resultOf(run, 'brand')).toEqual({ name: 'Acme', colors: ['#000000'], fonts: [], logo: null, tone: 'dry' });
});

describe('422 at run creation, located inside the value', () => {
  const at = (...path: (string | number)[]) => ['body', 'inputs', 0, 'value', ...path];

  test.each([
    ['a colour that is not hex', { name: 'A', colors: ['#000', 'red'] }, at('colors', 1), 'value_error'],
    ['no name', { colors: [] }, at('name'), 'value_error'],
    ['an unknown key', { name: 'A', colour: ['#000'] }, at(), 'value_error'],
    ['fonts that are not a list', { name: 'A', fonts: 'x' }, at('fonts'), 'value_error'],
    ['a logo id that is not a UUID', { name: 'A', logo: 'logo.png' }, at('logo'), 'value_error'],
    ['JSON text that is not JSON', '{name: A', at(), 'value_error'],
    ['a number', 42, at(), 'value_error'],
  ])('%s', async (_name, value, loc, type) => {
    const res = await create(value);
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual(expect.arrayContaining([expect.objectContaining({ loc, type })]));
  });

  test('a logo or font that does not exist, or is another organization’s, is reported like a missing asset', async () => {
    const other = await stack.gw.createOrg('Other');
    const theirs = await uploadAsset(stack.gw, other.apiKey, await solid(10, 10, '#00ff00'), 'theirs.png');
    const missing = '00000000-0000-4000-8000-000000000000';
    const res = await create({ name: 'A', logo: theirs, fonts: [font, missing] });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      expect.objectContaining({ loc: at('logo'), type: 'asset_not_found', input: theirs }),
      expect.objectContaining({ loc: at('fonts', 1), type: 'asset_not_found', input: missing }),
    ]);
    // The same words as for an asset input naming an id that does not exist.
    expect(res.body.detail[0].msg).toBe(`Asset ${theirs} not found or not accessible`);
  });

  test('a logo that is not an image and a font that is not a font file are refused', async () => {
    const res = await create({ name: 'A', logo: pdf, fonts: [font, logo] });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      expect.objectContaining({ loc: at('logo'), type: 'media_type', ctx: { expected: 'image' } }),
      expect.objectContaining({ loc: at('fonts', 1), type: 'media_type', ctx: { expected: 'font' } }),
    ]);
  });

  test('a valid brand is accepted', async () => {
    expect((await create({ name: 'A', logo, fonts: [font], colors: ['#123456'] })).status).toBe(201);
  });
});
