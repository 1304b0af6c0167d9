import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { Readable } from 'node:stream';
import type { S3Settings } from '@weft/devstack';
import { Upload } from '@aws-sdk/lib-storage';
import { createStorage, createUrlSigner, type Storage, type UrlSigner } from '@weft/storage';
import { cpuMicros, freePort, minorFaults, startBuilt, startTs, waitFor } from './lib/proc';
import { profileArgs, startBenchStack } from './lib/stack';

// `npm run bench:assets`: uploads and downloads through the real gateway
// beside a ceiling measured in the same run: the same bytes written straight
// to the same S3 endpoint with @aws-sdk/lib-storage, and read back with a
// plain GET of a presigned URL by the same client code that reads through the
// gateway and the relay (Node's http client), so that the paths differ only
// in what stands between the client and the store. Also the
// gateway's peak resident memory during a 1 GiB upload, which must stay flat
// because the file is streamed, never buffered. Downloads are also read
// through a bare TCP relay (tcp-relay.ts), the floor of any gateway that
// relays: on two cores the client, the store and the relay share the CPU, so
// what the relay reaches is the most a relaying gateway can reach in that run.
// Last, 32 uploads of 40 MiB at once, whose memory together the gateway
// bounds by ASSET_UPLOAD_MEMORY_BYTES. The gateway runs from dist/, as its
// image runs it.
// Figures swing between runs; the ratios are what matter.

const MiB = 1024 * 1024;
const SMALL_COUNT = Number(process.env.BENCH_SMALL_COUNT ?? 200);
const SMALL_BYTES = MiB;
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const LARGE_BYTES = Number(process.env.BENCH_LARGE_MIB ?? 1024) * MiB;
const TARGET_RATIO = 0.8;
/** Files, and downloads of them through each path, before anything is measured. */
const WARMUP_FILES = 8;
const WARMUP_DOWNLOADS = Number(process.env.BENCH_WARMUP_DOWNLOADS ?? 1000);
const TARGET_RSS_GROWTH = 64 * MiB;
/** Large uploads at once, after the rest: together they hold at most the gateway's upload memory. */
const BURST_COUNT = Number(process.env.BENCH_BURST_UPLOADS ?? 32);
const BURST_BYTES = Number(process.env.BENCH_BURST_MIB ?? 40) * MiB;
/** The gateway's ASSET_UPLOAD_MEMORY_BYTES, its default unless set. */
const UPLOAD_MEMORY = Number(process.env.ASSET_UPLOAD_MEMORY_BYTES ?? 128 * MiB);

// An MP4 `ftyp` box, so the gateway's content detection accepts the file; then noise.
const MP4_HEADER = Buffer.from('000000186674797069736f6d0000020069736f6d6d703431', 'hex');
const NOISE = randomBytes(MiB);

/** The file's bytes as a stream: the header, then noise up to `total`. */
async function* fileBytes(total: number): AsyncGenerator<Buffer> {
  yield MP4_HEADER;
  for (let sent = MP4_HEADER.length; sent < total; sent += NOISE.length) {
    yield NOISE.subarray(0, Math.min(NOISE.length, total - sent));
  }
}

/** The S3 server's process when this benchmark started it (its CPU is reported). */
let s3Pid: number | undefined;

/** s3rver in a process of its own, so that its CPU is not the benchmark's; or S3_ENDPOINT when set. */
async function startS3(dataDir: string): Promise<{ settings: S3Settings; stop(): Promise<void> }> {
  if (process.env.S3_ENDPOINT) {
    return {
      settings: {
        endpoint: process.env.S3_ENDPOINT,
        region: process.env.S3_REGION ?? 'us-east-1',
        accessKeyId: process.env.S3_ACCESS_KEY_ID ?? 'S3RVER',
        secretAccessKey: process.env.S3_SECRET_ACCESS_KEY ?? 'S3RVER',
        forcePathStyle: true,
      },
      stop: async () => undefined,
    };
  }
  const child = startTs('bench/s3-server.ts', { S3_DATA_DIR: dataDir, S3_PORT: String(await freePort()) }, [], true);
  s3Pid = child.pid;
  const settings = await new Promise<S3Settings>((resolve, reject) => {
    child.once('message', (m) => resolve(m as S3Settings));
    child.once('exit', (code) => reject(new Error(`s3 server exited (${code})`)));
  });
  return {
    settings,
    async stop() {
      child.kill('SIGTERM');
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** tcp-relay.ts in a process of its own, in front of the store; answers its port. */
async function startRelay(endpoint: string): Promise<{ port: number; pid: number; stop(): void }> {
  const target = new URL(endpoint);
  const child = startTs('bench/tcp-relay.ts', { RELAY_TARGET: `${target.hostname}:${target.port || 80}` }, [], true);
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m) => resolve(m as number));
    child.once('exit', (code) => reject(new Error(`tcp relay exited (${code})`)));
  });
  return { port, pid: child.pid!, stop: () => void child.kill('SIGTERM') };
}

/** Runs `count` tasks, `concurrency` at a time. */
async function inParallel(count: number, concurrency: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next < count) await task(next++);
    }),
  );
}

/** POST /assets/upload with a streamed multipart body; resolves with the asset id. */
function gatewayUpload(base: string, apiKey: string, total: number): Promise<string> {
  const boundary = `----weftbench${randomBytes(8).toString('hex')}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="bench.mp4"\r\n` +
      'Content-Type: application/octet-stream\r\n\r\n',
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  async function* body() {
    yield head;
    yield* fileBytes(total);
    yield tail;
  }
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}/assets/upload`, {
      method: 'POST',
      headers: {
        'x-api-key': apiKey,
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': String(head.length + total + tail.length),
      },
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        if (res.statusCode !== 200) reject(new Error(`upload: ${res.statusCode} ${text}`));
        else resolve((JSON.parse(text) as { id: string }).id);
      });
    });
    req.on('error', reject);
    Readable.from(body()).pipe(req);
  });
}

/** A GET whose body is counted and dropped; fails unless it is a 200 of `expected` bytes. */
function getExpecting(url: string, options: http.RequestOptions, expected: number, what: string): Promise<void> {
  return new Promise((resolve, reject) => {
    http
      .get(url, options, (res) => {
        let size = 0;
        res.on('data', (c: Buffer) => (size += c.length));
        res.on('end', () =>
          res.statusCode === 200 && size === expected
            ? resolve()
            : reject(new Error(`${what}: ${res.statusCode}, ${size} of ${expected} bytes`)),
        );
      })
      .on('error', reject);
  });
}

function gatewayDownload(base: string, apiKey: string, id: string, expected: number): Promise<void> {
  return getExpecting(`${base}/assets/${id}/download`, { headers: { 'x-api-key': apiKey } }, expected, 'download');
}

/** The ceiling's upload, as the issue defines it: @aws-sdk/lib-storage straight to the store, default part size. */
async function libStorageUpload(storage: Storage, key: string, total: number): Promise<void> {
  const upload = new Upload({
    client: storage.client,
    params: { Bucket: storage.bucket, Key: key, Body: Readable.from(fileBytes(total)), ContentType: 'video/mp4' },
    queueSize: 4,
  });
  await upload.done();
}

const storeAgent = new http.Agent({ keepAlive: true });
const relayAgent = new http.Agent({ keepAlive: true });

async function s3Download(signer: UrlSigner, key: string, expected: number): Promise<void> {
  await getExpecting(await signer.urlFor(key), { agent: storeAgent }, expected, 'S3 read');
}

/**
 * The ceiling's read through the TCP relay: the same presigned GET, sent to
 * the relay's port with the store's Host (the signature covers it).
 */
async function relayDownload(signer: UrlSigner, relayPort: number, key: string, expected: number): Promise<void> {
  const url = new URL(await signer.urlFor(key));
  await getExpecting(
    `http://127.0.0.1:${relayPort}${url.pathname}${url.search}`,
    { headers: { host: url.host }, agent: relayAgent },
    expected,
    'relay read',
  );
}

/** Resident memory of a process (Linux /proc), in bytes. */
function rss(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return Number(line?.split(/\s+/)[1] ?? 0) * 1024;
}

interface Figure {
  name: string;
  bytes: number;
  seconds: number;
  /** CPU time (µs) used meanwhile by this process (the client), the gateway or the relay, and the S3 server. */
  cpu: PerProcess;
  /** Minor page faults of the same processes meanwhile. */
  faults: PerProcess;
}

interface PerProcess {
  client: number;
  gateway: number;
  relay: number;
  s3: number;
}

let gatewayPid: number | undefined;
let relayPid: number | undefined;

/** `read` of each process's figure; this process's own (the client's) is given. */
function eachProcess(read: (pid: number) => number, client: number): PerProcess {
  return {
    client,
    gateway: gatewayPid ? read(gatewayPid) : 0,
    relay: relayPid ? read(relayPid) : 0,
    s3: s3Pid ? read(s3Pid) : 0,
  };
}

function cpuNow(): PerProcess {
  // In µs from the process itself: /proc counts this process in 10 ms ticks.
  const own = process.cpuUsage();
  return eachProcess(cpuMicros, own.user + own.system);
}

const faultsNow = () => eachProcess(minorFaults, minorFaults(process.pid));

const counted = (before: PerProcess, after: PerProcess): PerProcess => ({
  client: after.client - before.client,
  gateway: after.gateway - before.gateway,
  relay: after.relay - before.relay,
  s3: after.s3 - before.s3,
});

async function timed(name: string, bytes: number, work: () => Promise<void>): Promise<Figure> {
  const cpuBefore = cpuNow();
  const faultsBefore = faultsNow();
  const started = process.hrtime.bigint();
  await work();
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return { name, bytes, seconds, cpu: counted(cpuBefore, cpuNow()), faults: counted(faultsBefore, faultsNow()) };
}

const mbps = (f: Figure) => f.bytes / 1e6 / f.seconds;
/** CPU µs spent over a figure's bytes, in ms per MiB. */
const cpuPerMiB = (f: Figure, micros: number) => micros / 1000 / (f.bytes / MiB);

/** Rounds of the short phases (200 × 1 MiB take about a second: one run is mostly noise). */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

/**
 * The ceiling and the paths beside it measured in alternating rounds, so that
 * drift in the machine's load touches all; each figure is the median of its rounds.
 */
async function alternatingRounds(
  bytes: number,
  paths: Array<[name: string, work: (round: number) => Promise<void>]>,
): Promise<Figure[]> {
  const runs: Figure[][] = paths.map(() => []);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, [name, work]] of paths.entries()) runs[i]!.push(await timed(name, bytes, () => work(round)));
  }
  const median = (figures: Figure[]) => [...figures].sort((a, b) => a.seconds - b.seconds)[figures.length >> 1]!;
  return runs.map(median);
}

async function main() {
  const stack = await startBenchStack({ name: 'bench-assets', startS3 });
  const storage = createStorage(stack.s3);
  const relay = await startRelay(stack.s3.endpoint);
  relayPid = relay.pid;
  const port = await freePort();
  const gateway = await startBuilt(
    'apps/gateway/src/main.ts',
    {
      ...stack.serviceEnv,
      PORT: String(port),
      HOST: '127.0.0.1',
      ASSET_MAX_UPLOAD_BYTES: String(2 * LARGE_BYTES),
      RATE_LIMIT_DEFAULT_PER_MINUTE: '10000000',
      RATE_LIMIT_CREATE_PER_MINUTE: '10000000',
      RATE_LIMIT_UPLOAD_PER_MINUTE: '10000000',
      ASSET_UPLOAD_MEMORY_BYTES: String(UPLOAD_MEMORY),
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    },
    profileArgs(),
  );
  gatewayPid = gateway.pid;
  const signer = createUrlSigner(storage, { ttlSeconds: 3600, audience: 'servers' });
  const stopAll = async () => {
    gateway.kill('SIGTERM');
    relay.stop();
    storage.close();
    await stack.stop();
  };

  try {
    const base = `http://127.0.0.1:${port}`;
    await waitFor(`${base}/readyz`);
    const orgRes = await fetch(`${base}/admin/organizations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${stack.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'bench' }),
    });
    const apiKey = ((await orgRes.json()) as { api_key: string }).api_key;
    // Warm-up, on files of its own: the first requests pay for JIT, sockets and
    // connection pools. A gateway's download path takes about a thousand
    // requests to reach its steady CPU per request (4.5-7 ms per 1 MiB download
    // in the first 200, 1.4-2 ms from about the thousandth on), so each path
    // reads WARMUP_DOWNLOADS files before it is measured. The measured files are
    // still read for the first time in round 0 (the `downloaded` flag's update
    // included).
    const warmIds: string[] = [];
    const warmKeys = Array.from({ length: WARMUP_FILES }, (_, i) => `warm-up/${i}`);
    await inParallel(WARMUP_FILES, 4, async (i) => {
      warmIds.push(await gatewayUpload(base, apiKey, SMALL_BYTES));
      await libStorageUpload(storage, warmKeys[i]!, SMALL_BYTES);
    });
    await inParallel(WARMUP_DOWNLOADS, CONCURRENCY, async (i) => {
      await s3Download(signer, warmKeys[i % WARMUP_FILES]!, SMALL_BYTES);
      await gatewayDownload(base, apiKey, warmIds[i % WARMUP_FILES]!, SMALL_BYTES);
      await relayDownload(signer, relay.port, warmKeys[i % WARMUP_FILES]!, SMALL_BYTES);
    });

    const smallTotal = SMALL_COUNT * SMALL_BYTES;
    /** Each phase: the ceiling, the gateway, and for downloads the TCP relay. */
    const phases: Figure[][] = [];
    const ceilingKeys: string[] = [];
    const gatewayIds: string[] = [];
    const small = `${SMALL_COUNT} × 1 MiB, ${CONCURRENCY} at a time`;
    const large = `1 file of ${LARGE_BYTES / MiB} MiB`;
    phases.push(
      await alternatingRounds(smallTotal, [
        [
          `upload ${small}: ceiling`,
          (round) =>
            inParallel(SMALL_COUNT, CONCURRENCY, async (i) => {
              const key = `ceiling/small-${round}-${i}`;
              await libStorageUpload(storage, key, SMALL_BYTES);
              if (round === 0) ceilingKeys.push(key);
            }),
        ],
        [
          `upload ${small}: gateway`,
          (round) =>
            inParallel(SMALL_COUNT, CONCURRENCY, async () => {
              const id = await gatewayUpload(base, apiKey, SMALL_BYTES);
              if (round === 0) gatewayIds.push(id);
            }),
        ],
      ]),
    );
    const largeCeiling = await timed(`upload ${large}: ceiling`, LARGE_BYTES, () =>
      libStorageUpload(storage, 'ceiling/large', LARGE_BYTES),
    );
    const rssBefore = rss(gateway.pid!);
    let rssPeak = rssBefore;
    const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rss(gateway.pid!))), 50);
    let largeId = '';
    try {
      phases.push([
        largeCeiling,
        await timed(`upload ${large}: gateway`, LARGE_BYTES, async () => {
          largeId = await gatewayUpload(base, apiKey, LARGE_BYTES);
        }),
      ]);
    } finally {
      clearInterval(sampler);
    }
    phases.push(
      await alternatingRounds(smallTotal, [
        [
          `download ${small}: ceiling`,
          () => inParallel(SMALL_COUNT, CONCURRENCY, (i) => s3Download(signer, ceilingKeys[i]!, SMALL_BYTES)),
        ],
        [
          `download ${small}: gateway`,
          () => inParallel(SMALL_COUNT, CONCURRENCY, (i) => gatewayDownload(base, apiKey, gatewayIds[i]!, SMALL_BYTES)),
        ],
        [
          `download ${small}: TCP relay`,
          () =>
            inParallel(SMALL_COUNT, CONCURRENCY, (i) =>
              relayDownload(signer, relay.port, ceilingKeys[i]!, SMALL_BYTES),
            ),
        ],
      ]),
    );
    phases.push(
      await alternatingRounds(LARGE_BYTES, [
        [`download ${large}: ceiling`, () => s3Download(signer, 'ceiling/large', LARGE_BYTES)],
        [`download ${large}: gateway`, () => gatewayDownload(base, apiKey, largeId, LARGE_BYTES)],
        [`download ${large}: TCP relay`, () => relayDownload(signer, relay.port, 'ceiling/large', LARGE_BYTES)],
      ]),
    );

    // Last, so that it leaves nothing behind for the downloads: many large
    // uploads at once, each holding its multipart parts in memory while they
    // are sent; the gateway admits as many as fit in ASSET_UPLOAD_MEMORY_BYTES.
    const burstBefore = rss(gateway.pid!);
    let burstPeak = burstBefore;
    const burstSampler = setInterval(() => (burstPeak = Math.max(burstPeak, rss(gateway.pid!))), 20);
    const burstStart = performance.now();
    try {
      await Promise.all(Array.from({ length: BURST_COUNT }, () => gatewayUpload(base, apiKey, BURST_BYTES)));
    } finally {
      clearInterval(burstSampler);
    }
    const burstSeconds = (performance.now() - burstStart) / 1000;

    console.log(
      `\nbench:assets — same machine, S3 at ${stack.s3.endpoint}; ` +
        `200 × 1 MiB phases and 1 GiB downloads: median of ${ROUNDS} alternating rounds\n`,
    );
    console.log(
      '| measurement | MB/s | seconds | ratio to ceiling | CPU ms per MiB: client / gateway or relay / S3 server ' +
        '| page faults per MiB, same order |',
    );
    console.log('|---|---:|---:|---:|---:|---:|');
    const perMiB = (f: Figure, counts: PerProcess, scale: number, digits: number) =>
      [counts.client, counts.gateway + counts.relay, counts.s3]
        .map((n) => (n / scale / (f.bytes / MiB)).toFixed(digits))
        .join(' / ');
    const ratios: number[] = [];
    const floors: string[] = [];
    for (const [ceiling, gatewayFigure, relayFigure] of phases as Array<[Figure, Figure, Figure?]>) {
      for (const f of [ceiling, gatewayFigure, relayFigure]) {
        if (!f) continue;
        const ratio = mbps(f) / mbps(ceiling);
        console.log(
          `| ${f.name} | ${mbps(f).toFixed(1)} | ${f.seconds.toFixed(2)} | ${ratio.toFixed(2)} ` +
            `| ${perMiB(f, f.cpu, 1000, 2)} | ${perMiB(f, f.faults, 1, 0)} |`,
        );
      }
      ratios.push(mbps(gatewayFigure) / mbps(ceiling));
      if (relayFigure) {
        const machine = (f: Figure) => cpuPerMiB(f, f.cpu.client + f.cpu.gateway + f.cpu.relay + f.cpu.s3);
        floors.push(
          `${gatewayFigure.name.replace(/: gateway$/, '')}: the TCP relay reached ` +
            `${(mbps(relayFigure) / mbps(ceiling)).toFixed(2)} of the ceiling, the gateway ` +
            `${(mbps(gatewayFigure) / mbps(relayFigure)).toFixed(2)} of the relay. ` +
            `CPU per MiB of client, store and whatever stands between: ceiling ${machine(ceiling).toFixed(2)} ms, ` +
            `gateway ${machine(gatewayFigure).toFixed(2)}, relay ${machine(relayFigure).toFixed(2)}; ` +
            `while the two cores are the limit a path's ratio follows ceiling ÷ path, here ` +
            `${(machine(ceiling) / machine(gatewayFigure)).toFixed(2)} (gateway) and ` +
            `${(machine(ceiling) / machine(relayFigure)).toFixed(2)} (relay), and ${TARGET_RATIO} needs a path ` +
            `to add at most ${(machine(ceiling) * (1 / TARGET_RATIO - 1)).toFixed(2)} ms per MiB to the ceiling's`,
        );
      }
    }
    const growth = rssPeak - rssBefore;
    console.log(
      `\nGateway resident memory during the ${LARGE_BYTES / MiB} MiB upload: ${(rssBefore / MiB).toFixed(0)} MiB before, ` +
        `peak ${(rssPeak / MiB).toFixed(0)} MiB, growth ${(growth / MiB).toFixed(1)} MiB`,
    );
    const burstGrowth = burstPeak - burstBefore;
    const burstCeiling = UPLOAD_MEMORY + TARGET_RSS_GROWTH;
    console.log(
      `Gateway resident memory during ${BURST_COUNT} uploads of ${BURST_BYTES / MiB} MiB at once ` +
        `(${((BURST_COUNT * BURST_BYTES) / MiB / burstSeconds).toFixed(1)} MB/s): ` +
        `${(burstBefore / MiB).toFixed(0)} MiB before, peak ${(burstPeak / MiB).toFixed(0)} MiB, ` +
        `growth ${(burstGrowth / MiB).toFixed(1)} MiB, against ASSET_UPLOAD_MEMORY_BYTES ` +
        `(${UPLOAD_MEMORY / MiB} MiB) + ${TARGET_RSS_GROWTH / MiB} MiB = ${burstCeiling / MiB} MiB`,
    );
    console.log(`\nThe floor of a relaying gateway in this run:\n${floors.map((l) => `- ${l}`).join('\n')}`);
    const ok = ratios.every((r) => r >= TARGET_RATIO) && growth <= TARGET_RSS_GROWTH && burstGrowth <= burstCeiling;
    console.log(
      `\nTargets: every gateway ratio ≥ ${TARGET_RATIO}, RSS growth ≤ ${TARGET_RSS_GROWTH / MiB} MiB ` +
        `(1 GiB upload) and ≤ ${burstCeiling / MiB} MiB (uploads at once) → ` +
        `${ok ? 'MET' : 'NOT MET'} (lowest ratio ${Math.min(...ratios).toFixed(2)})`,
    );
    process.exitCode = ok ? 0 : 1;
  } finally {
    await stopAll();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
