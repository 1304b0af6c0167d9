import type { ChildProcess } from 'node:child_process';
import { createAgentRun, createAppRun, createTextApp, uploadSmallFile } from './lib/list-fixtures';
import { figuresTable, measure, type Figures } from './lib/measure';
import { freePort, loadAverage, startTs, stopChild, waitFor } from './lib/proc';
import { createOrg, createTextAgent, startBenchGateway, startBenchStack } from './lib/stack';

// `npm run bench:gateway`: authenticated reads through the real gateway, the
// catalog's hottest (`GET /agents/{id}`) and the first page (limit=20) of
// every list a dashboard or an SDK pages through, beside a ceiling measured
// in the same run on the same machine (a bare Express route doing one Redis
// and one PostgreSQL primary-key round trip with `pg`). A second, same-bytes
// ceiling answers the asset page's exact bytes from a bare route, since that
// page is five times the size of any other. Figures swing 10–30% between
// runs; the ratio is what matters. BENCH_CPU_PROF=1 or BENCH_PERF=1
// profiles the gateway (lib/stack.ts, profileArgs).

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 10);
const TARGET_RATIO = 0.7;
const TARGET_P99_MS = 25;
const LIST_TARGET_RATIO = 0.5;
/** More than two pages of everything listed. */
const ITEMS = 45;
/** BENCH_LISTS=/agents,/assets/ measures only those (for a profile of one list). */
const LISTS = process.env.BENCH_LISTS?.split(',') ?? ['/agents', '/apps', '/runs', '/app-runs/', '/assets/'];

async function main() {
  const stack = await startBenchStack();
  const gatewayPort = await freePort();
  const ceilingPort = await freePort();
  const children: ChildProcess[] = [];

  try {
    const gateway = startBenchGateway(stack, gatewayPort);
    const ceilingServer = startTs('bench/ceiling-server.ts', {
      PORT: String(ceilingPort),
      DATABASE_URL: stack.databaseUrl,
      REDIS_URL: stack.redisUrl,
    });
    children.push(gateway, ceilingServer);
    const base = `http://127.0.0.1:${gatewayPort}`;
    await waitFor(`${base}/readyz`);

    const auth = await createOrg(base, stack.adminToken, 1000);
    let agentId = '';
    for (let i = 0; i < ITEMS; i++) agentId = await createTextAgent(base, auth, `Bench agent ${i}`);
    const appIds: string[] = [];
    for (let i = 0; i < ITEMS; i++) appIds.push(await createTextApp(base, auth, agentId, `Bench app ${i}`));
    for (let i = 0; i < ITEMS; i++) {
      await createAgentRun(base, auth, agentId);
      await createAppRun(base, auth, appIds[i]!);
      await uploadSmallFile(base, auth, `bench-${i}`);
    }
    await waitFor(`http://127.0.0.1:${ceilingPort}/agents/${agentId}`);

    const opts = { connections: CONNECTIONS, durationS: DURATION_S };
    const ceiling = await measure(
      'ceiling: Express + Redis GET + pg SELECT',
      ceilingServer.pid!,
      `http://127.0.0.1:${ceilingPort}/agents/${agentId}`,
      opts,
    );
    const byId = await measure('GET /agents/{id} (X-Api-Key)', gateway.pid!, `${base}/agents/${agentId}`, {
      ...opts,
      headers: auth,
    });
    const lists: Figures[] = [];
    for (const path of LISTS) {
      lists.push(
        await measure(`GET ${path}?limit=20 (X-Api-Key)`, gateway.pid!, `${base}${path}?limit=20`, {
          ...opts,
          headers: auth,
        }),
      );
    }

    // The same bytes as the gateway's asset page, from a bare route: how much
    // of that list's gap to the ceiling is the size of its answer.
    const assetsPage = await fetch(`${base}/assets/?limit=20`, { headers: auth }).then((res) => res.text());
    await fetch(`http://127.0.0.1:${ceilingPort}/assets-page`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: assetsPage,
    });
    const pageCeiling = await measure(
      'same-bytes ceiling: Express + Redis GET + pg SELECT of the 20 assets, answering the /assets/ page',
      ceilingServer.pid!,
      `http://127.0.0.1:${ceilingPort}/assets-page`,
      opts,
    );

    console.log(
      `\nbench:gateway — ${CONNECTIONS} connections, ${DURATION_S} s each, same machine, load ${loadAverage()}\n`,
    );
    console.log(figuresTable([ceiling, byId, ...lists, pageCeiling], ceiling.rps));
    const ratio = byId.rps / ceiling.rps;
    const ok = ratio >= TARGET_RATIO && byId.p99 <= TARGET_P99_MS && byId.errors === 0;
    console.log(
      `\nTarget GET /agents/{id}: ≥ ${TARGET_RATIO}× ceiling and p99 ≤ ${TARGET_P99_MS} ms → ` +
        `${ratio.toFixed(2)}×, p99 ${byId.p99} ms: ${ok ? 'MET' : 'NOT MET'}`,
    );
    let listsOk = true;
    for (const list of lists) {
      const listRatio = list.rps / ceiling.rps;
      const met = listRatio >= LIST_TARGET_RATIO && list.errors === 0;
      listsOk &&= met;
      console.log(
        `Target ${list.name.replace(' (X-Api-Key)', '')}: ≥ ${LIST_TARGET_RATIO}× ceiling → ` +
          `${listRatio.toFixed(2)}×: ${met ? 'MET' : 'NOT MET'}`,
      );
    }
    const assets = lists.find((list) => list.name.startsWith('GET /assets/'));
    if (assets) {
      console.log(
        `GET /assets/ against the bare route answering its same bytes: ${(assets.rps / pageCeiling.rps).toFixed(2)}× ` +
          `(that route itself: ${(pageCeiling.rps / ceiling.rps).toFixed(2)}× the ceiling)`,
      );
    }
    process.exitCode = ok && listsOk ? 0 : 1;
  } finally {
    await Promise.all(children.map((c) => stopChild(c)));
    await stack.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
