import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { Redis } from 'ioredis';
import { Pool } from 'pg';
import { startDelayProvider } from './lib/delay-provider';
import { EventStreamClients, inBatches, quantile } from './lib/event-streams';
import {
  cpuMicros,
  freePort,
  loadAverage,
  postJson,
  ROOT,
  sleep,
  startBuilt,
  startTs,
  statusBytes,
  stopChild,
  waitFor,
} from './lib/proc';
import { benchGatewayEnv, createOrg, profileArgs, startBenchStack, type BenchStack } from './lib/stack';
import { measureWebhookDeliveries, type WebhookFigures } from './lib/webhook-deliveries';

// `npm run bench:events`: run event streams (GET /runs/{id}/events) on one
// gateway process (from dist/, as its image runs it), their clients in this
// process (node's http, one connection per stream, eventsource-parser).
//
// 1. Memory and CPU of idle streams: the gateway's resident memory after a
//    full collection (bench/gc-on-signal.mjs) with no stream open, then with
//    BENCH_STREAMS streams open on runs parked on a human review (they get
//    keep-alive comments only), ÷ the streams; its CPU meanwhile, beside its
//    CPU with no stream open.
// 2. Commit → client delay: with those streams still open, runs of a small
//    text flow are created at BENCH_RUNS_PER_S from a process of their own
//    (background-runs.ts), BENCH_STREAMS_PER_RUN streams opened on each. The
//    flow makes four commits on its run (the create, then one per node
//    executed by the worker), so the default 25 runs/s make about 100 run
//    updates/s, counted from the runs table. Its two generic_provider nodes
//    call a stand-in provider answering in BENCH_CALL_MS (in this process),
//    so that its streams follow a run in progress: text nodes alone end
//    about half the runs before a client opening its stream on the create's
//    answer is connected, and only the slower half's ends could be timed.
//    Each event reporting a commit made once its stream was open is timed
//    from the timestamp that commit wrote (now(), the same machine's clock:
//    lib/event-streams.ts) to its arrival here.
// 3. Webhook deliveries/s (lib/webhook-deliveries.ts): a backlog of
//    deliveries made with no worker running, drained by a worker process
//    (from dist/) to a receiver in a process of its own, beside a bare HTTP
//    POST loop against that receiver in the same run, as many requests with
//    the same body, as many at once as the worker's WEBHOOK_CONCURRENCY.
//    Target: deliveries/s ≥ 0.5 × the bare loop's posts/s.
//
// Beside the delay, its floor on this machine in the same window: a Redis
// PUBLISH → SUBSCRIBE hop received in this process at 100 messages/s, and
// this process's event-loop delay. BENCH_CPU_PROF=1 profiles the gateway, and
// the worker of the webhook phase.
// BENCH_PHASES (default `streams,webhooks`) picks the phases to run: the
// first two are `streams`. Exits 0 whether targets are met or not.

const STREAMS = Number(process.env.BENCH_STREAMS ?? 1000);
const RUNS_PER_S = Number(process.env.BENCH_RUNS_PER_S ?? 25);
const STREAMS_PER_RUN = Number(process.env.BENCH_STREAMS_PER_RUN ?? 4);
const CALL_MS = Number(process.env.BENCH_CALL_MS ?? 100);
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 20);
/** Unmeasured load first: JIT, pools and prepared statements of the stream path under load. */
const WARM_UP_S = Number(process.env.BENCH_WARM_UP_S ?? 5);
/** Two keep-alive intervals (EVENTS_KEEPALIVE_MS, 15 s by default). */
const IDLE_S = Number(process.env.BENCH_IDLE_S ?? 30);
/** Streams opened and closed before the memory baseline: code and pools of the stream path warmed. */
const WARM_STREAMS = 100;
const TARGET_UPDATES_PER_S = 100;
const TARGET_P99_MS = 50;
const TARGET_KIB_PER_STREAM = 20;
const FLOOR_RATE = 100;
const TARGET_WEBHOOK_RATIO = 0.5;
const PHASES = new Set((process.env.BENCH_PHASES ?? 'streams,webhooks').split(',').map((p) => p.trim()));
for (const phase of PHASES) {
  if (phase !== 'streams' && phase !== 'webhooks') {
    throw new Error(`BENCH_PHASES: unknown phase "${phase}" (expected a list of streams, webhooks)`);
  }
}

/** A phase's rows of the table, and its notes under it. */
interface Report {
  rows: string[];
  notes: string[];
}

/** Parks on its review node: streams of its runs stay idle. */
const REVIEW_FLOW = {
  nodes: [
    { id: 'topic', type: 'text_input', description: 'Topic' },
    { id: 'check', type: 'human_review', inputs: { value: 'topic' } },
  ],
  outputs: [{ id: 'check', type: 'text', description: 'Approved topic' }],
};

const liveFlow = (url: string) => ({
  nodes: [
    { id: 'topic', type: 'text_input', description: 'Topic' },
    { id: 'draft', type: 'generic_provider', params: { url }, inputs: { prompt: 'topic' } },
    { id: 'polish', type: 'generic_provider', params: { url }, inputs: { prompt: 'draft' } },
    { id: 'split', type: 'text_split', inputs: { text: 'polish' } },
  ],
  outputs: [{ id: 'split', type: 'text', description: 'Lines' }],
});

async function createAgent(base: string, auth: Record<string, string>, name: string, flow: object) {
  const agent = await postJson(`${base}/agents`, auth, { name, description: name, tags: ['bench'], flow });
  return agent.id as string;
}

interface GatewayMemory {
  /** VmRSS (/proc), the median of five readings after the collection. */
  rss: number;
  /** V8's heap in use, and memory outside it (buffers), right after the collection. */
  heapUsed: number;
  external: number;
}

/** The gateway's memory after a full collection (bench/gc-on-signal.mjs writes `file` once it is done). */
async function gatewayMemory(pid: number, file: string): Promise<GatewayMemory> {
  rmSync(file, { force: true });
  process.kill(pid, 'SIGUSR2');
  await waitUntil("the gateway's full collection", () => existsSync(file), 10_000);
  const usage = JSON.parse(readFileSync(file, 'utf8')) as NodeJS.MemoryUsage;
  const samples: number[] = [];
  for (let i = 0; i < 5; i++) {
    samples.push(statusBytes(pid, 'VmRSS'));
    await sleep(200);
  }
  return { rss: samples.sort((a, b) => a - b)[2]!, heapUsed: usage.heapUsed, external: usage.external };
}

/** Share of one core a process used over `seconds`. */
async function cpuShare(pid: number, seconds: number): Promise<number> {
  const before = cpuMicros(pid);
  await sleep(seconds * 1000);
  return (cpuMicros(pid) - before) / (seconds * 1e6);
}

/** Run commits of an agent's runs so far: one per create, one per version (each transition bumps it). */
async function runUpdates(db: Pool, agentId: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    'SELECT (coalesce(sum(version), 0) + count(*))::int AS n FROM runs WHERE agent_id = $1',
    [agentId],
  );
  return rows[0]!.n;
}

async function waitUntil(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 120_000) {
  for (const deadline = Date.now() + timeoutMs; !(await check()); await sleep(100)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
  }
}

/** A Redis PUBLISH → SUBSCRIBE hop received in this process, `rate` messages/s while `running()`. */
async function pubSubFloor(redisUrl: string, channel: string, rate: number, running: () => boolean) {
  const pub = new Redis(redisUrl);
  const sub = new Redis(redisUrl);
  const delays: number[] = [];
  sub.on('message', (_channel: string, sent: string) => delays.push(performance.now() - Number(sent)));
  await sub.subscribe(channel);
  const done = (async () => {
    for (let next = performance.now(); running(); next += 1000 / rate) {
      await sleep(Math.max(0, next - performance.now()));
      void pub.publish(channel, String(performance.now()));
    }
    await sleep(100);
    pub.disconnect();
    sub.disconnect();
    return delays.sort((a, b) => a - b);
  })();
  return done;
}

/** Phases 1 and 2: their rows of the table, and the notes under it. */
async function measureStreams(stack: BenchStack, db: Pool): Promise<Report> {
  const provider = await startDelayProvider();
  const children: ChildProcess[] = [];
  let background: ChildProcess | undefined;
  const streamClients: EventStreamClients[] = [];
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'bench-events-'));

  try {
    const worker = startTs('apps/worker/src/main.ts', {
      ...stack.serviceEnv,
      WORKER_HTTP_PORT: '0',
      // The stand-in provider is on loopback.
      OUTBOUND_ALLOWED_HOSTS: '127.0.0.1',
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
    });
    children.push(worker);

    // The organization, its agents and the runs parked on a review (one idle stream each, and
    // the warm-up's), through a gateway of their own: the gateway measured starts afterwards,
    // its memory not swollen by that work (memory a process has freed and kept is reused by
    // what comes next, and would hide the streams' own).
    const setupPort = await freePort();
    const setupBase = `http://127.0.0.1:${setupPort}`;
    const setup = await startBuilt('apps/gateway/src/main.ts', benchGatewayEnv(stack, setupPort));
    children.push(setup);
    await waitFor(`${setupBase}/readyz`);
    const auth = await createOrg(setupBase, stack.adminToken, 10_000_000);
    const reviewAgent = await createAgent(setupBase, auth, 'Bench events: parked on a review', REVIEW_FLOW);
    const liveAgent = await createAgent(
      setupBase,
      auth,
      'Bench events: two provider calls',
      liveFlow(provider.url(CALL_MS)),
    );
    const parked: string[] = [];
    await inBatches(
      Array.from({ length: STREAMS + WARM_STREAMS }, (_, i) => i),
      20,
      async () => {
        const run = await postJson(`${setupBase}/runs`, auth, {
          agent_id: reviewAgent,
          inputs: [{ id: 'topic', value: 'a topic to review' }],
        });
        parked.push(run.id as string);
      },
    );
    await waitUntil('the runs to wait for their review', async () => {
      const { rows } = await db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM runs WHERE agent_id = $1 AND awaiting_human_review',
        [reviewAgent],
      );
      return rows[0]!.n === parked.length;
    });
    await stopChild(setup);

    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const memoryFile = path.join(scratch, 'memory.json');
    const gateway = await startBuilt(
      'apps/gateway/src/main.ts',
      benchGatewayEnv(stack, port, { BENCH_MEMORY_FILE: memoryFile }),
      ['--expose-gc', '--import', pathToFileURL(path.join(ROOT, 'bench', 'gc-on-signal.mjs')).href, ...profileArgs()],
    );
    children.push(gateway);
    await waitFor(`${base}/readyz`);

    const warm = new EventStreamClients(base, auth);
    streamClients.push(warm);
    await inBatches(parked.slice(STREAMS), 20, (id) => warm.follow(id, REVIEW_FLOW.nodes.length));
    warm.closeAll();
    await waitUntil('the warm-up streams to close', () => warm.open === 0);
    await sleep(1000);

    // 1. Idle streams: memory and CPU.
    const memNone = await gatewayMemory(gateway.pid!, memoryFile);
    const cpuNone = await cpuShare(gateway.pid!, IDLE_S);
    const idle = new EventStreamClients(base, auth);
    streamClients.push(idle);
    await inBatches(parked.slice(0, STREAMS), 50, (id) => idle.follow(id, REVIEW_FLOW.nodes.length));
    const memIdle = await gatewayMemory(gateway.pid!, memoryFile);
    idle.recording = true;
    const cpuIdle = await cpuShare(gateway.pid!, IDLE_S);
    idle.recording = false;
    const keepAlives = idle.counts.keepAlives;
    const idleFailures = idle.failures;

    // 2. Commit → client delay while runs execute.
    const live = new EventStreamClients(base, auth);
    streamClients.push(live);
    let created = 0;
    let createdInWindow = 0;
    background = startTs(
      'bench/background-runs.ts',
      {
        BENCH_BASE_URL: base,
        BENCH_RATE: String(RUNS_PER_S),
        BENCH_AUTH_HEADERS: JSON.stringify(auth),
        BENCH_AGENT_ID: liveAgent,
      },
      [],
      true,
    );
    background.on('message', (m: { id: string }) => {
      created++;
      if (live.recording) createdInWindow++;
      for (let i = 0; i < STREAMS_PER_RUN; i++) {
        live.follow(m.id, liveFlow('').nodes.length).catch(() => undefined);
      }
    });
    await sleep(WARM_UP_S * 1000);

    const updatesBefore = await runUpdates(db, liveAgent);
    const gatewayCpuBefore = cpuMicros(gateway.pid!);
    const ownCpuBefore = process.cpuUsage();
    const loopDelay = monitorEventLoopDelay({ resolution: 10 });
    loopDelay.enable();
    const openSamples: number[] = [];
    const sampler = setInterval(() => openSamples.push(idle.open + live.open), 250);
    live.recording = true;
    const floor = pubSubFloor(stack.redisUrl, `${stack.redisPrefix}:floor`, FLOOR_RATE, () => live.recording);
    const started = performance.now();
    await sleep(DURATION_S * 1000);
    live.recording = false;
    const windowS = (performance.now() - started) / 1000;
    clearInterval(sampler);
    loopDelay.disable();
    const ownCpu = process.cpuUsage(ownCpuBefore);
    const gatewayCpu = (cpuMicros(gateway.pid!) - gatewayCpuBefore) / (windowS * 1e6);
    const updatesPerS = ((await runUpdates(db, liveAgent)) - updatesBefore) / windowS;
    const floorDelays = await floor;

    await stopChild(background);
    background = undefined;
    await waitUntil('the runs to end', async () => {
      const { rows } = await db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM runs WHERE agent_id = $1 AND status = 'in_progress'",
        [liveAgent],
      );
      return rows[0]!.n === 0;
    });
    // Every stream of an ended run closes after its `end`: one still open missed it.
    await waitUntil('the streams to close', () => live.open === 0, 5_000).catch(() => undefined);
    const leftOpen = live.open;

    const delays = [...live.delays].sort((a, b) => a - b);
    const q = (x: number) => quantile(delays, x).toFixed(0);
    const p99 = quantile(delays, 0.99);
    const perStreamKib = (field: keyof GatewayMemory) => (memIdle[field] - memNone[field]) / STREAMS / 1024;
    // RSS swings by tens of MiB between two collections of an idle gateway (V8 commits its young
    // generation at 1 to about 30 MiB, the allocator returns memory or not), more than 1,000 streams
    // take; new objects also fill the free heap a fresh gateway holds. The heap misses native memory
    // (sockets, parsers). The verdict takes the larger of the two.
    const rssKib = perStreamKib('rss');
    const heapKib = perStreamKib('heapUsed') + perStreamKib('external');
    const kib = Math.max(rssKib, heapKib);
    const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
    const pct = (share: number) => `${(100 * share).toFixed(1)}%`;
    const perS = (n: number) => (n / windowS).toFixed(0);
    const verdict = (ok: boolean) => (ok ? 'MET' : 'NOT MET');
    const openMin = Math.min(...openSamples);
    const openMax = Math.max(...openSamples);
    const openMean = openSamples.reduce((a, b) => a + b, 0) / Math.max(1, openSamples.length);
    const f1 = (x: number) => x.toFixed(1);

    const rows: string[] = [];
    const notes: string[] = [];
    rows.push(
      `| commit → client delay, ${openMin}–${openMax} streams open, ${updatesPerS.toFixed(0)} run updates/s | ` +
        `p50 ${q(0.5)} / p90 ${q(0.9)} / p99 ${q(0.99)} / max ${q(1)} ms (${delays.length} events timed` +
        `${leftOpen > 0 ? `; ${leftOpen} streams never got their \`end\`` : ''}) | ` +
        `p99 ≤ ${TARGET_P99_MS} ms | ${verdict(delays.length > 0 && p99 <= TARGET_P99_MS && leftOpen === 0)} |`,
    );
    rows.push(
      `| memory per open stream (gateway after a full GC, ${STREAMS} idle streams ÷ ${STREAMS}) | ` +
        `RSS ${rssKib.toFixed(1)} KiB (${mib(memNone.rss)} → ${mib(memIdle.rss)} MiB); ` +
        `V8 heap + external ${heapKib.toFixed(1)} KiB (${mib(memNone.heapUsed)} → ${mib(memIdle.heapUsed)} MiB heap used) | ` +
        `≤ ${TARGET_KIB_PER_STREAM} KiB | ` +
        `${verdict(idleFailures === 0 && kib <= TARGET_KIB_PER_STREAM)} |`,
    );
    rows.push(
      `| gateway CPU, ${STREAMS} idle streams (keep-alives only), ${IDLE_S} s | ${pct(cpuIdle)} of a core ` +
        `(${pct(cpuNone)} with no stream open); ${keepAlives} keep-alives received | — | — |`,
    );
    notes.push(
      `During the ${windowS.toFixed(0)} s measured (after ${WARM_UP_S} s of warm-up): ` +
        `${perS(createdInWindow)} runs created/s (${RUNS_PER_S}/s offered; ${created} in all), ` +
        `${updatesPerS.toFixed(0)} run updates/s from the runs table (creates + version bumps; target about ${TARGET_UPDATES_PER_S}); ` +
        `events received/s: run ${perS(live.counts.run)}, node ${perS(live.counts.node)}, end ${perS(live.counts.end)}; ` +
        `streams open min / mean / max ${openMin} / ${openMean.toFixed(0)} / ${openMax} ` +
        `(${STREAMS} idle + ${STREAMS_PER_RUN} per live run); stream failures: ${idleFailures + live.failures}; ` +
        `streams left open 5 s after their run ended (missed its \`end\`): ${leftOpen}.`,
    );
    notes.push(
      `Gateway CPU ${pct(gatewayCpu)} of a core; this process (the clients and the stand-in provider) ` +
        `${pct((ownCpu.user + ownCpu.system) / (windowS * 1e6))}, its event-loop delay p99 ` +
        `${f1(loopDelay.percentile(99) / 1e6)} ms. Floor in the same window: a Redis PUBLISH → SUBSCRIBE hop ` +
        `received in this process, p50 ${f1(quantile(floorDelays, 0.5))} / p99 ${f1(quantile(floorDelays, 0.99))} / ` +
        `max ${f1(quantile(floorDelays, 1))} ms.`,
    );
    notes.push(
      "Timed events: `end` (the run's completed_at) and `node` events of a node the commit dispatched (started_at) " +
        'or skipped: timestamps the commit statement wrote with now(), at its start (so a delay includes the ' +
        "statement's own time), to the millisecond. Events of a stream's first write are not timed (they report " +
        'commits made before the stream was open).',
    );
    notes.push(
      'Memory per stream: the larger of the growth of RSS (/proc, median of five readings) and of V8 heap used + ' +
        'external memory (process.memoryUsage()), both right after a full collection, ÷ the streams. RSS swings by ' +
        'tens of MiB from one collection to the next (the young generation alone is committed at 1 to ~30 MiB): ' +
        'at 1,000 streams its growth is noise, and the heap decides; the heap misses native memory.',
    );
    return { rows, notes };
  } finally {
    for (const clients of streamClients) clients.closeAll();
    if (background) await stopChild(background);
    await Promise.all(children.map((c) => stopChild(c)));
    await provider.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}

function webhookReport(w: WebhookFigures): Report {
  const ratio = w.deliveriesPerS / w.bare.postsPerS;
  const ok = ratio >= TARGET_WEBHOOK_RATIO && w.missing === 0 && w.failures === 0 && w.badSignatures === 0;
  const us = (x: number) => x.toFixed(0);
  return {
    rows: [
      `| webhook deliveries/s to a local receiver (backlog of ${w.deliveries}, WEBHOOK_CONCURRENCY ${w.concurrency}) | ` +
        `${w.deliveriesPerS.toFixed(0)}/s (${w.deliveries - w.missing} in ${w.seconds.toFixed(1)} s; ` +
        `${w.duplicates} duplicates, ${w.failures} failed attempts, ${w.missing} never received) ` +
        `beside a bare POST loop's ${w.bare.postsPerS.toFixed(0)}/s: ratio ${ratio.toFixed(2)} | ` +
        `≥ ${TARGET_WEBHOOK_RATIO} of the bare loop | ${ok ? 'MET' : 'NOT MET'} |`,
    ],
    notes: [
      `Webhooks: ${w.runs} runs refused for credits (a \`start\` and a \`completed\` each) × (${w.endpoints} endpoints + ` +
        `the run's own webhook) = ${w.deliveries} deliveries recorded with no worker running, then drained by one worker ` +
        `process; timed from the first to the last arrival at the receiver (a process of its own, answering 204 at once). ` +
        `Bodies ${w.meanBodyBytes.toFixed(0)} B on average; signatures checked on ${w.verified}, ${w.badSignatures} bad. ` +
        `Bare loop (fetch, a process of its own): ${w.bare.posts} posts of ${w.bare.meanBodyBytes.toFixed(0)} B, ` +
        `${w.concurrency} at once, in ${w.bare.seconds.toFixed(1)} s, ${w.bare.errors} errors.`,
      `Per delivery during the drain: worker CPU ${us(w.cpuUs.worker)} µs, PostgreSQL ${us(w.cpuUs.postgres)} µs ` +
        `(${w.pgCommitsPerDelivery.toFixed(1)} transactions committed), Redis ${us(w.cpuUs.redis)} µs ` +
        `(${w.redisCommandsPerDelivery.toFixed(1)} commands, counted server-wide), receiver ${us(w.cpuUs.receiver)} µs; ` +
        `per bare post: loop ${us(w.cpuUs.bareLoop)} µs, receiver ${us(w.cpuUs.bareReceiver)} µs.`,
    ],
  };
}

async function main() {
  const stack = await startBenchStack({ name: 'bench-events' });
  const db = new Pool({ connectionString: stack.databaseUrl, max: 2 });
  try {
    const streams = PHASES.has('streams') ? await measureStreams(stack, db) : undefined;
    const webhooks = PHASES.has('webhooks') ? webhookReport(await measureWebhookDeliveries(stack, db)) : undefined;
    console.log(`\nbench:events — phases ${[...PHASES].join(', ')}; same machine; load average ${loadAverage()}\n`);
    console.log('| measure | figure | target | verdict |');
    console.log('|---|---|---|---|');
    for (const report of [streams, webhooks]) for (const row of report?.rows ?? []) console.log(row);
    console.log('');
    for (const report of [streams, webhooks]) for (const note of report?.notes ?? []) console.log(note);
    console.log('(exit code 0 whether or not targets are met: figures swing with the machine’s load)');
  } finally {
    await db.end();
    await stack.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
