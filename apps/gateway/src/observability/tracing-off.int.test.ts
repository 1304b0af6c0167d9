import { runProbe } from '../testing/probe-process';

// Tracing costs nothing unless configured: without an OTLP endpoint the SDK,
// its exporters and the http instrumentation are never even loaded. Checked
// in a fresh Node process (jest keeps a module registry of its own), loading
// each app's modules the way its main.ts does, tracing module first.
//
// Loading a whole app from source takes a process many seconds on a busy
// machine, so only the cases that say "never loaded" load one: whether
// tracing starts is decided by the tracing module alone, before any other.

const PROBE = `
  const [tracing, ...modules] = JSON.parse(process.argv[1]);
  require(tracing);
  for (const m of modules) require(m);
  const packages = new Set(
    Object.keys(require.cache)
      .filter((k) => k.includes('node_modules/@opentelemetry/'))
      .map((k) => k.split('node_modules/')[1].split('/').slice(0, 2).join('/')),
  );
  const http = require('node:http');
  process.stdout.write(JSON.stringify({ packages: [...packages], httpPatched: Boolean(http.request.__wrapped) }));
`;

const APPS = {
  gateway: ['./apps/gateway/src/tracing', './apps/gateway/src/compose', './apps/gateway/src/app'],
  worker: ['./apps/worker/src/tracing', '@weft/engine', './apps/worker/src/compose'],
};

async function probe(modules: string[], env: Record<string, string>) {
  const stdout = await runProbe(PROBE, { args: [JSON.stringify(modules)], env });
  return JSON.parse(stdout) as { packages: string[]; httpPatched: boolean };
}

// A fresh process loading an app from source: seconds alone, tens of seconds on a loaded machine.
jest.setTimeout(120_000);

test.each(Object.entries(APPS))(
  '%s without an OTLP endpoint: the SDK is not loaded, http is not patched',
  async (_app, modules) => {
    const off = await probe(modules, {});
    expect(off.packages).not.toContain('@opentelemetry/sdk-node');
    expect(off.packages).not.toContain('@opentelemetry/sdk-trace');
    expect(off.packages).not.toContain('@opentelemetry/instrumentation-http');
    expect(off.httpPatched).toBe(false);
  },
);

test.each(Object.entries(APPS))(
  '%s with an OTLP endpoint: its tracing module loads the SDK and patches http',
  async (_app, [tracing]) => {
    // The same probe sees the SDK when it is there, so the check above can fail.
    const on = await probe([tracing!], { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' });
    expect(on.packages).toEqual(
      expect.arrayContaining(['@opentelemetry/sdk-node', '@opentelemetry/instrumentation-http']),
    );
    expect(on.httpPatched).toBe(true);
  },
);

test('OTEL_SDK_DISABLED=true keeps it off even with an endpoint', async () => {
  const disabled = await probe([APPS.gateway[0]!], {
    OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318',
    OTEL_SDK_DISABLED: 'true',
  });
  expect(disabled.packages).not.toContain('@opentelemetry/sdk-node');
  expect(disabled.httpPatched).toBe(false);
});
