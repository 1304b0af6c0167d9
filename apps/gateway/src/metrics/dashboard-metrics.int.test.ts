import fs from 'node:fs';
import path from 'node:path';
import { parseExposition } from '@weft/metrics';
import { parser } from '@prometheus-io/lezer-promql';
import request from 'supertest';
import { parse as parseYaml } from 'yaml';
import { startTestGateway, type TestGateway } from '../testing/test-gateway';
import { servicesEnvOf, startWorkerProcess, type WorkerProcess } from '../testing/worker-process';

// The Grafana dashboards (infra/grafana/dashboards/*.json) and the Prometheus
// rules (infra/prometheus/*.yml) may only use metrics that exist: every PromQL
// expression is parsed and each metric it selects must be exposed by the real
// gateway's or a real worker's /metrics. A renamed metric fails here, not on
// an operator's empty panel or a silent alert.

// A worker process started from source in beforeAll: tens of seconds on a busy machine.
jest.setTimeout(120_000);

const REPO_ROOT = path.resolve(__dirname, '..', '..', '..', '..');
const DASHBOARDS = path.join(REPO_ROOT, 'infra', 'grafana', 'dashboards');
const RULES = path.join(REPO_ROOT, 'infra', 'prometheus');

/** Series Prometheus makes itself for every target and alert, not exposed by any process. */
const PROMETHEUS_OWN = new Set([
  'up',
  'scrape_duration_seconds',
  'scrape_samples_scraped',
  'scrape_samples_post_metric_relabeling',
  'scrape_series_added',
  'ALERTS',
  'ALERTS_FOR_STATE',
]);

interface Expression {
  /** File and position, for failure messages. */
  where: string;
  expr: string;
}

function filesIn(dir: string, pattern: RegExp): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((name) => pattern.test(name))
    .map((name) => path.join(dir, name));
}

/** Every panel target's `expr`, at any depth (rows nest panels), and query variables. */
function dashboardExpressions(): Expression[] {
  const out: Expression[] = [];
  for (const file of filesIn(DASHBOARDS, /\.json$/)) {
    const where = path.relative(REPO_ROOT, file);
    const visit = (node: unknown, at: string): void => {
      if (Array.isArray(node)) {
        node.forEach((child, i) => visit(child, `${at}[${i}]`));
        return;
      }
      if (node === null || typeof node !== 'object') return;
      const record = node as Record<string, unknown>;
      if (Array.isArray(record.targets)) {
        record.targets.forEach((target: { expr?: unknown }, i) => {
          if (typeof target?.expr === 'string' && target.expr.trim() !== '') {
            out.push({ where: `${where} ${at}.targets[${i}]`, expr: target.expr });
          }
        });
      }
      for (const [key, value] of Object.entries(record)) if (key !== 'targets') visit(value, `${at}.${key}`);
    };
    const dashboard = JSON.parse(fs.readFileSync(file, 'utf8')) as { templating?: { list?: unknown[] } };
    visit(dashboard, '');
    // Query variables: label_values(metric, label) and query_result(<PromQL>) name metrics too.
    for (const [i, variable] of (dashboard.templating?.list ?? []).entries()) {
      const v = variable as { query?: unknown };
      const query = typeof v.query === 'string' ? v.query : (v.query as { query?: unknown } | undefined)?.query;
      if (typeof query !== 'string') continue;
      const inner =
        /^\s*label_values\(\s*(.+?)\s*,\s*[A-Za-z_]\w*\s*\)\s*$/.exec(query)?.[1] ??
        /^\s*query_result\((.*)\)\s*$/.exec(query)?.[1];
      if (inner) out.push({ where: `${where} templating.list[${i}]`, expr: inner });
    }
  }
  return out;
}

/** `groups[].rules[].expr` of every rule file, and the series recording rules define. */
function ruleExpressions(): { expressions: Expression[]; recorded: Set<string> } {
  const expressions: Expression[] = [];
  const recorded = new Set<string>();
  for (const file of filesIn(RULES, /\.ya?ml$/)) {
    const where = path.relative(REPO_ROOT, file);
    const doc = parseYaml(fs.readFileSync(file, 'utf8')) as {
      groups?: { name?: string; rules?: { alert?: string; record?: string; expr?: unknown }[] }[];
    } | null;
    for (const group of doc?.groups ?? []) {
      for (const rule of group.rules ?? []) {
        if (rule.record) recorded.add(rule.record);
        if (rule.expr !== undefined && String(rule.expr).trim() !== '') {
          expressions.push({ where: `${where} ${rule.alert ?? rule.record ?? group.name}`, expr: String(rule.expr) });
        }
      }
    }
  }
  return { expressions, recorded };
}

/**
 * Grafana substitutes its variables before Prometheus sees a query; the parser
 * must see something valid in their place: a duration where one is expected
 * (`[$__rate_interval]`), a number elsewhere. Inside strings they stay.
 */
function withoutGrafanaVariables(expr: string): string {
  let out = '';
  let quote: string | undefined;
  for (let i = 0; i < expr.length; i++) {
    const c = expr[i]!;
    if (quote) {
      out += c;
      if (c === '\\') out += expr[++i] ?? '';
      else if (c === quote) quote = undefined;
      continue;
    }
    if (c === '"' || c === "'" || c === '`') {
      quote = c;
      out += c;
      continue;
    }
    const variable = /^(\$\{[^}]+\}|\$\w+|\[\[\w+\]\])/.exec(expr.slice(i))?.[0];
    if (variable && !(c === '[' && !variable.startsWith('[['))) {
      const before = out.trimEnd();
      out += before.endsWith('[') || before.endsWith(':') || /offset$/.test(before) ? '5m' : '1';
      i += variable.length - 1;
      continue;
    }
    out += c;
  }
  return out;
}

/** The metric names an expression selects; throws on a syntax error. */
function metricNames(expression: Expression): string[] {
  const source = withoutGrafanaVariables(expression.expr);
  const tree = parser.parse(source);
  const names: string[] = [];
  const text = (from: number, to: number) => source.slice(from, to);
  tree.iterate({
    enter(node) {
      if (node.type.isError) {
        throw new Error(`${expression.where}: PromQL syntax error at ${node.from} in: ${expression.expr}`);
      }
      if (node.name !== 'VectorSelector') return;
      const identifier = node.node.getChild('Identifier');
      if (identifier) {
        names.push(text(identifier.from, identifier.to));
        return;
      }
      // {__name__="metric"}: the only other way to name one.
      const matchers = node.node.getChild('LabelMatchers');
      for (const matcher of matchers?.getChildren('UnquotedLabelMatcher') ?? []) {
        const label = matcher.getChild('LabelName');
        const value = matcher.getChild('StringLiteral');
        if (!label || !value || text(label.from, label.to) !== '__name__') continue;
        if (!matcher.getChild('MatchOp')?.getChild('EqlSingle')) {
          throw new Error(`${expression.where}: __name__ must be matched exactly for this check: ${expression.expr}`);
        }
        names.push(JSON.parse(text(value.from, value.to).replace(/^'|'$/g, '"')) as string);
        return;
      }
      throw new Error(`${expression.where}: a selector that names no metric: ${expression.expr}`);
    },
  });
  return names;
}

let gw: TestGateway;
let worker: WorkerProcess;
let exposed: Set<string>;

beforeAll(async () => {
  gw = await startTestGateway();
  const c = gw.config;
  worker = startWorkerProcess({
    ...servicesEnvOf(c),
    DATABASE_POOL_SIZE: '2',
  });
  const port = await worker.httpPort;
  const [fromGateway, fromWorker] = await Promise.all([
    request(gw.app).get('/metrics'),
    fetch(`http://127.0.0.1:${port}/metrics`).then((res) => res.text()),
  ]);
  expect(fromGateway.status).toBe(200);
  exposed = new Set([...parseExposition(fromGateway.text).seriesNames(), ...parseExposition(fromWorker).seriesNames()]);
});

afterAll(async () => {
  if (worker && worker.child.exitCode === null && worker.child.signalCode === null) worker.child.kill('SIGTERM');
  await worker?.exited;
  await gw?.close();
});

test('the dashboards and the alert rules exist and hold PromQL expressions', () => {
  expect(filesIn(DASHBOARDS, /\.json$/)).not.toEqual([]);
  expect(dashboardExpressions().length).toBeGreaterThan(0);
  expect(ruleExpressions().expressions.length).toBeGreaterThan(0);
});

test('every expression parses', () => {
  for (const expression of [...dashboardExpressions(), ...ruleExpressions().expressions]) {
    expect(() => metricNames(expression)).not.toThrow();
  }
});

test('every metric they use is exposed by the gateway or a worker', () => {
  const { expressions, recorded } = ruleExpressions();
  const missing: string[] = [];
  let checked = 0;
  for (const expression of [...dashboardExpressions(), ...expressions]) {
    for (const name of metricNames(expression)) {
      checked++;
      if (!exposed.has(name) && !recorded.has(name) && !PROMETHEUS_OWN.has(name)) {
        missing.push(`${name} (${expression.where})`);
      }
    }
  }
  expect(checked).toBeGreaterThan(0);
  expect(missing).toEqual([]);
});

test('the check itself: finds names in selectors, __name__ matchers and around Grafana variables', () => {
  const names = (expr: string) => metricNames({ where: 'inline', expr });
  expect(names('histogram_quantile(0.9, sum by (le) (rate(a_bucket{route!="/x"}[$__rate_interval])))')).toEqual([
    'a_bucket',
  ]);
  expect(names('sum(b{queue="$queue"}) / on() group_left max({__name__="c"}) offset $__range')).toEqual(['b', 'c']);
  expect(names('max(weft_workers) < 1 or absent(weft_workers)')).toEqual(['weft_workers', 'weft_workers']);
  expect(() => names('sum(rate(x[5m])')).toThrow(/syntax error/);
  expect(exposed.has('weft_http_request_duration_seconds_bucket')).toBe(true);
  expect(exposed.has('no_such_metric')).toBe(false);
});
