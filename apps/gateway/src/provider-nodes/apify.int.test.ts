import type { Flow, NodeType } from '@weft/contracts';
import type { Engine } from '@weft/engine';
import { apifyAdapter, createNodeRoutes } from '@weft/providers';
import { startApifyDouble, waitFor, type ApifyDouble, type DoubleRun } from '@weft/testing';
import pino from 'pino';
import request from 'supertest';
import { balanceOf } from '../testing/balance';
import { postAgent } from '../testing/catalog-fixtures';
import { download, failureOf, resultOf, runAgent, runFlow, type Org } from '../testing/media/runs';
import { pollRun, startRunStack, type RunBody, type RunStack } from '../testing/test-runs';

// The five extractor types through Apify: a loopback double of its API v2
// driven by the real apify-client, runs through the HTTP API.

const TOKEN = 'apify_api_test-0123456789-very-secret';
let double: ApifyDouble;
let stack: RunStack;
let engine: Engine;
let org: Org;
const workerLog: string[] = [];

beforeAll(async () => {
  double = await startApifyDouble(TOKEN);
  const settings = { apiKey: TOKEN, baseURL: double.baseUrl, minPollMs: 20, retryDelayMs: 50, maxRetries: 3 };
  const nodeRoutes = createNodeRoutes({}, { adapters: [apifyAdapter(settings)] });
  const logger = pino({ level: 'trace' }, { write: (line: string) => void workerLog.push(line) });
  stack = await startRunStack({}, { nodeRoutes, logger });
  // A second worker whose engine the resume test drives by hand, as a worker taking an attempt over would.
  engine = (await stack.startWorker({ nodeRoutes, logger, reconcileStaleMs: 600_000 })).engine;
  org = await stack.gw.createOrg('Extractors', 100_000);
}, 60_000);
afterEach(() => {
  double.respond('ok');
  double.script({ polls: 0, ending: 'SUCCEEDED' });
});
afterAll(async () => {
  await stack?.close();
  await double?.close();
});

interface Item {
  id: string | null;
  url: string | null;
  text: string | null;
  author: string | null;
  published_at: string | null;
  media: string[];
  raw: Record<string, unknown>;
}

const extractFlow = (type: NodeType, params: Record<string, unknown> = {}): Flow => ({
  nodes: [
    { id: 'q', type: 'text_input' },
    { id: 'extract', type, params, inputs: { query: 'q' } },
  ],
  outputs: [{ id: 'extract', type: 'data', description: 'The items' }],
});

/** Whether `input` names `query` (as is, or encoded in a search URL). */
const names = (input: unknown, query: string) =>
  [query, encodeURIComponent(query)].some((q) => JSON.stringify(input ?? null).includes(q));
/** The double's runs whose input names `query`. */
const runsOf = (query: string): DoubleRun[] => [...double.runs.values()].filter((r) => names(r.input, query));
const startsOf = (query: string) =>
  double.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/runs') && names(r.body, query));
const pollsOf = (runId: string) => double.requests.filter((r) => r.path === `/v2/actor-runs/${runId}`);

async function extract(type: NodeType, query: string, params: Record<string, unknown> = {}) {
  const run = await runFlow(stack.gw, org.apiKey, extractFlow(type, params), [{ id: 'q', value: query }]);
  return { run, items: run.status === 'completed' ? (resultOf(run, 'extract') as Item[]) : [] };
}

const CASES: {
  type: NodeType;
  actor: string;
  query: string;
  input: Record<string, unknown>;
  first: Omit<Item, 'media' | 'raw'>;
  media: ('png' | 'mp4')[];
}[] = [
  {
    type: 'socialads_extractor',
    actor: 'apify~facebook-ads-scraper',
    query: 'running shoes',
    input: {
      startUrls: [
        {
          url: 'https://www.facebook.com/ads/library/?active_status=all&ad_type=all&country=ALL&media_type=all&search_type=keyword_unordered&q=running%20shoes',
        },
      ],
      resultsLimit: 3,
    },
    first: {
      id: '900000000000',
      url: 'https://www.facebook.com/ads/library/?id=900000000000',
      text: 'Ad 0: run faster in Acme shoes',
      author: 'Acme Shoes',
      published_at: '2024-06-01T00:00:00.000Z',
    },
    media: ['mp4', 'png'],
  },
  {
    type: 'professionalnetwork_ads_extractor',
    actor: 'crucial_binoculars~linkedin-ad-library',
    query: 'https://www.linkedin.com/ad-library/search?accountOwner=acme',
    input: { startUrls: [{ url: 'https://www.linkedin.com/ad-library/search?accountOwner=acme' }], maxItems: 3 },
    first: {
      id: '55500',
      url: 'https://www.linkedin.com/ad-library/detail/55500',
      text: 'Ad 0: hiring engineers',
      author: 'Acme Corp',
      published_at: '2024-06-01T00:00:00.000Z',
    },
    media: ['png'],
  },
  {
    type: 'photosocial_posts_extractor',
    actor: 'apify~instagram-scraper',
    query: '#sunset',
    input: { search: 'sunset', searchType: 'hashtag', searchLimit: 1, resultsType: 'posts', resultsLimit: 3 },
    first: {
      id: '310000',
      url: 'https://www.instagram.com/p/C0xyz/',
      text: 'Post 0 #sunset',
      author: 'acme.photos',
      published_at: '2024-06-01T00:00:00.000Z',
    },
    media: ['mp4'],
  },
  {
    type: 'professionalnetwork_posts_extractor',
    actor: 'curious_coder~linkedin-post-search-scraper',
    query: 'shipping software',
    input: {
      urls: ['https://www.linkedin.com/search/results/content/?keywords=shipping%20software'],
      limitPerSource: 3,
      deepScrape: false,
    },
    first: {
      id: 'urn:li:activity:72000',
      url: 'https://www.linkedin.com/feed/update/urn:li:activity:72000/',
      text: 'Post 0: what we learned shipping',
      author: 'Ada Lovelace',
      published_at: '2024-06-01T00:00:00.000Z',
    },
    media: ['png'],
  },
  {
    type: 'shortvideo_extractor',
    actor: 'clockworks~tiktok-scraper',
    query: '@acme',
    input: { profiles: ['acme'], resultsPerPage: 3, shouldDownloadVideos: true, shouldDownloadCovers: false },
    first: {
      id: '73000',
      url: 'https://www.tiktok.com/@acme/video/73000',
      text: 'Video 0 #dance',
      author: 'acme',
      published_at: '2024-06-01T00:00:00.000Z',
    },
    media: ['mp4'],
  },
];

test.each(CASES)(
  '$type: its default actor gets the query and limit, the items come back in our shape with their media stored',
  async ({ type, actor, query, input, first, media }) => {
    const before = double.requests.length;
    const { run, items } = await extract(type, query, { limit: 3 });
    expect(run.status).toBe('completed');
    const starts = double.requests.slice(before).filter((r) => r.method === 'POST' && r.path.endsWith('/runs'));
    expect(starts).toHaveLength(1);
    expect(starts[0]!.path).toBe(`/v2/actors/${actor}/runs`);
    expect(starts[0]!.body).toEqual(input);
    expect(starts[0]!.query.maxItems).toBe('3');
    expect(starts[0]!.authorization).toBe(`Bearer ${TOKEN}`);
    // The dataset holds 5 items: the limit keeps 3.
    expect(items).toHaveLength(3);
    const started = runsOf(query.replace(/^[#@]/, '')).find((r) => r.actor === actor.replace('~', '/'))!;
    expect(items[0]).toEqual({ ...first, media: expect.any(Array), raw: started.items[0] });
    expect(items[0]!.media).toHaveLength(media.length);
    for (const [i, kind] of media.entries()) {
      const { bytes } = await download(stack.gw, org.apiKey, items[0]!.media[i]!);
      expect(bytes.equals(kind === 'png' ? double.png : double.mp4)).toBe(true);
    }
    expect(new Set(items.flatMap((i) => i.media)).size).toBe(items.flatMap((i) => i.media).length);
  },
);

test('params.model names another actor and params.options reach its input', async () => {
  const { run, items } = await extract('photosocial_posts_extractor', 'https://www.instagram.com/acme/', {
    model: 'someone/instagram-reels',
    limit: 2,
    options: { onlyReels: true, maxItems: 7 },
  });
  expect(run.status).toBe('completed');
  const start = startsOf('https://www.instagram.com/acme/').at(-1)!;
  expect(start.path).toBe('/v2/actors/someone~instagram-reels/runs');
  expect(start.body).toEqual({ startUrls: [{ url: 'https://www.instagram.com/acme/' }], maxItems: 7, onlyReels: true });
  expect(items.map((i) => i.text)).toEqual(['Item 0', 'Item 1']);
});

test('a run RUNNING for 3 polls, then SUCCEEDED: the node waits for it', async () => {
  double.script({ polls: 3, ending: 'SUCCEEDED', items: 2 });
  const { run, items } = await extract('shortvideo_extractor', '#polled', { limit: 5 });
  expect(run.status).toBe('completed');
  expect(items).toHaveLength(2);
  const [started] = runsOf('polled');
  expect(pollsOf(started!.id)).toHaveLength(4);
  expect(pollsOf(started!.id).every((p) => Number(p.query.waitForFinish) > 0)).toBe(true);
});

test.each([
  ['FAILED', /the Apify run \w+ of apify\/instagram-scraper ended FAILED: The actor crashed/],
  ['TIMED-OUT', /ended TIMED-OUT/],
] as const)('a run that ends %s fails the node with provider_error', async (ending, message) => {
  double.script({ polls: 1, ending, statusMessage: 'The actor crashed' });
  const { run } = await extract('photosocial_posts_extractor', `#ends${ending.replace('-', '')}`);
  const failure = failureOf(run);
  expect(failure.reason).toBe('provider_error');
  expect(failure.error).toMatch(message);
  expect(failure.error).toContain("Node 'extract'");
});

test('a 401: provider_auth_required naming APIFY_TOKEN, never the token', async () => {
  double.respond('unauthorized');
  const { run } = await extract('socialads_extractor', 'unauthorized ads');
  const failure = failureOf(run);
  expect(failure.reason).toBe('provider_auth_required');
  expect(failure.error).toBe("Node 'extract': Apify refused the credentials (HTTP 401); check APIFY_TOKEN");
  expect(startsOf('unauthorized ads')).toHaveLength(1);
});

test('an actor Apify does not know: invalid_input with Apify’s words', async () => {
  double.respond('actor_not_found');
  const { run } = await extract('socialads_extractor', 'no such actor', { model: 'nobody/nothing' });
  const failure = failureOf(run);
  expect(failure.reason).toBe('invalid_input');
  expect(failure.error).toBe("Node 'extract': Apify refused the request (HTTP 404): Actor was not found");
  expect(startsOf('no such actor')[0]!.path).toBe('/v2/actors/nobody~nothing/runs');
});

test('a 429 with Retry-After, then ok: the SDK retries and the run completes', async () => {
  double.respond('rate_limited_then_ok');
  const { run } = await extract('socialads_extractor', 'busy hour', { limit: 1 });
  expect(run.status).toBe('completed');
  expect(startsOf('busy hour')).toHaveLength(2);
});

test('a 500 every time: provider_error after the SDK’s retries', async () => {
  double.respond('server_error');
  const { run } = await extract('socialads_extractor', 'server trouble');
  const failure = failureOf(run);
  expect(failure.reason).toBe('provider_error');
  expect(failure.error).toMatch(/Apify failed \(HTTP 500\): Internal server error/);
  expect(startsOf('server trouble')).toHaveLength(4);
});

test('Apify never answering the start: timeout within the node’s timeout_ms', async () => {
  double.respond('stall');
  const { run } = await extract('socialads_extractor', 'silence', { timeout_ms: 1000 });
  expect(failureOf(run)).toEqual({ reason: 'timeout', error: expect.stringMatching(/1000 ms/) });
});

test('a run still going at the node’s timeout is aborted on Apify', async () => {
  double.script({ polls: 0, ending: 'held' });
  const { run } = await extract('socialads_extractor', 'too slow', { timeout_ms: 1500 });
  expect(failureOf(run).reason).toBe('timeout');
  const [started] = runsOf('too slow');
  await waitFor('the abort', async () => (started!.status === 'ABORTED' ? true : undefined), { timeoutMs: 10_000 });
  expect(double.requests.filter((r) => r.path === `/v2/actor-runs/${started!.id}/abort`)).toHaveLength(1);
});

/** Starts a run of `flow` and returns its id without waiting for it. */
async function startRun(flow: Flow, query: string): Promise<string> {
  const agent = await postAgent(stack.gw.app, org.apiKey, { flow });
  const res = await request(stack.gw.app)
    .post('/runs')
    .set('X-Api-Key', org.apiKey)
    .send({ agent_id: agent.id, inputs: [{ id: 'q', value: query }] })
    .expect(201);
  return res.body.id as string;
}

/** The double's run of `query` once it has been polled. */
const polledRun = (query: string) =>
  waitFor(
    `the run of ${query} to be polled`,
    async () => {
      const run = runsOf(query)[0];
      return run && pollsOf(run.id).length > 0 ? run : undefined;
    },
    { timeoutMs: 30_000 },
  );

test('cancelling the run mid-way aborts the actor run on Apify', async () => {
  double.script({ polls: 0, ending: 'held' });
  const runId = await startRun(extractFlow('socialads_extractor'), 'cancel me');
  const started = await polledRun('cancel me');
  await request(stack.gw.app).delete(`/runs/${runId}`).set('X-Api-Key', org.apiKey).expect(204);
  await waitFor('the abort', async () => (started.status === 'ABORTED' ? true : undefined), { timeoutMs: 10_000 });
  expect(double.requests.filter((r) => r.path === `/v2/actor-runs/${started.id}/abort`)).toHaveLength(1);
  const run = await pollRun(stack.gw, org.apiKey, `/runs/${runId}`);
  expect(run.status).toBe('canceled');
});

test('the same attempt executed twice (a worker taking over) resumes the actor run: one run started', async () => {
  double.script({ polls: 0, ending: 'held', items: 2 });
  const runId = await startRun(extractFlow('professionalnetwork_posts_extractor', { limit: 2 }), 'taken over');
  const started = await polledRun('taken over');
  const [row] = await stack.gw.deps.db.prisma.nodeExecution.findMany({ where: { runId, nodeId: 'extract' } });
  const pollsBefore = pollsOf(started.id).length;
  const second = engine.executeNode({ runId, nodeId: 'extract', attempt: row!.attempt });
  // The second execution recalls the job and polls the same actor run.
  await waitFor(
    'the second execution to poll',
    async () => (pollsOf(started.id).length > pollsBefore ? true : undefined),
    {
      timeoutMs: 10_000,
    },
  );
  double.finish(started.id);
  await second;
  const run: RunBody = await pollRun(stack.gw, org.apiKey, `/runs/${runId}`, undefined, 30_000);
  expect(run.status).toBe('completed');
  expect(startsOf('taken over')).toHaveLength(1);
  expect(runsOf('taken over')).toHaveLength(1);
  expect(resultOf(run, 'extract')).toHaveLength(2);
});

test('media a URL the outbound rules refuse is left out, noted in raw; the item stays', async () => {
  const refused = 'http://169.254.169.254/latest/meta-data.png';
  double.script({
    polls: 0,
    ending: 'SUCCEEDED',
    dataset: [
      { id: 'ok', url: 'https://example.com/ok', text: 'fine', images: [double.imageUrl] },
      { id: 'metadata', url: 'https://example.com/md', text: 'sneaky', images: [refused] },
    ],
  });
  const { run, items } = await extract('socialads_extractor', 'refused media', { model: 'someone/ads' });
  expect(run.status).toBe('completed');
  expect(items.map((i) => i.media.length)).toEqual([1, 0]);
  expect(items[1]!.raw._weft_skipped_media).toEqual([
    { url: refused, reason: expect.stringMatching(/the result URL: .*169\.254\.169\.254/) },
  ]);
  expect(items[0]!.raw).not.toHaveProperty('_weft_skipped_media');
});

test('when no media of any item could be stored, the node fails with the reason', async () => {
  double.script({
    polls: 0,
    ending: 'SUCCEEDED',
    dataset: [{ id: 'metadata', images: ['http://169.254.169.254/latest/a.png'] }],
  });
  const { run } = await extract('socialads_extractor', 'only refused media', { model: 'someone/ads' });
  expect(failureOf(run).reason).toBe('invalid_input');
});

test('an empty query is refused with invalid_input before Apify is called', async () => {
  const before = double.requests.length;
  const { run } = await extract('socialads_extractor', '   ');
  expect(failureOf(run)).toEqual({
    reason: 'invalid_input',
    error: "Node 'extract': the query at input 'query' is empty",
  });
  expect(double.requests.length).toBe(before);
});

test('the cost is the items priced by the actor’s price, charged on the run and recorded in node_charges', async () => {
  const agent = await postAgent(stack.gw.app, org.apiKey, {
    flow: extractFlow('photosocial_posts_extractor', { limit: 3 }),
  });
  // What an extractor reserves: 100 credits and 10 an item.
  expect(agent.estimated_cost).toBe(130);
  const before = await balanceOf(stack.gw.deps.db, org.id);
  const run = await runAgent(stack.gw, org.apiKey, agent.id, [{ id: 'q', value: '@priced' }]);
  // apify/instagram-scraper: 2.3 credits an item × 3 = 6.9 → 7.
  expect(run.status).toBe('completed');
  expect(run.cost).toBe(7);
  expect(await balanceOf(stack.gw.deps.db, org.id)).toBe(before - 7);
  const { rows } = await stack.gw.deps.db.pool.query(
    'SELECT node_id, node_type, provider, model, usage, credits FROM node_charges WHERE run_id = $1',
    [run.id],
  );
  expect(rows).toEqual([
    {
      node_id: 'extract',
      node_type: 'photosocial_posts_extractor',
      provider: 'apify',
      model: 'apify/instagram-scraper',
      usage: { items: 3, requests: 1 },
      credits: 7,
    },
  ]);
});

test('the token never appears in the worker’s logs', () => {
  expect(workerLog.length).toBeGreaterThan(0);
  expect(workerLog.join('\n')).not.toContain(TOKEN);
});
