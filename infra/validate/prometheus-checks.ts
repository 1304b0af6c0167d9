import { isObject } from './files';
import { parsePromql } from './promql';

// infra/prometheus: the shape Prometheus loads (we have no promtool here) and
// every expression parsed by Prometheus' grammar.

const DURATION = /^(\d+(ms|s|m|h|d|w|y))+$/;

export function checkPrometheusConfig(config: unknown, ruleFiles: string[]): string[] {
  if (!isObject(config)) return ['prometheus.yml: not a mapping'];
  const problems: string[] = [];
  const global = config['global'];
  if (isObject(global)) {
    for (const key of ['scrape_interval', 'evaluation_interval']) {
      const value = global[key];
      if (value !== undefined && !(typeof value === 'string' && DURATION.test(value))) {
        problems.push(`global.${key}: ${String(value)} is not a duration`);
      }
    }
  }
  const listed = Array.isArray(config['rule_files']) ? config['rule_files'].map(String) : [];
  for (const file of ruleFiles) {
    if (!listed.some((l) => l.endsWith(`/${file}`) || l === file)) problems.push(`rule_files does not load ${file}`);
  }
  const jobs = Array.isArray(config['scrape_configs']) ? config['scrape_configs'] : [];
  if (jobs.length === 0) problems.push('no scrape_configs');
  const names = new Set<string>();
  for (const job of jobs) {
    if (!isObject(job) || typeof job['job_name'] !== 'string') {
      problems.push('a scrape config without job_name');
      continue;
    }
    const name = job['job_name'];
    if (names.has(name)) problems.push(`job ${name} is defined twice`);
    names.add(name);
    const discovery = Object.keys(job).filter((k) => k.endsWith('_sd_configs') || k === 'static_configs');
    if (discovery.length === 0) problems.push(`job ${name}: no targets (static_configs or *_sd_configs)`);
    for (const sd of [job['dns_sd_configs']].flat()) {
      if (sd === undefined) continue;
      if (!isObject(sd) || !Array.isArray(sd['names'])) problems.push(`job ${name}: dns_sd_configs needs names`);
      else if (sd['type'] === 'A' && typeof sd['port'] !== 'number')
        problems.push(`job ${name}: A-record discovery needs a port`);
    }
  }
  for (const job of ['weft-gateway', 'weft-worker']) if (!names.has(job)) problems.push(`no scrape job ${job}`);
  return problems;
}

export function checkRuleGroups(rules: unknown): { problems: string[]; expressions: string[] } {
  const problems: string[] = [];
  const expressions: string[] = [];
  if (!isObject(rules) || !Array.isArray(rules['groups'])) return { problems: ['no groups'], expressions };
  const alerts = new Set<string>();
  for (const group of rules['groups']) {
    if (!isObject(group) || typeof group['name'] !== 'string' || !Array.isArray(group['rules'])) {
      problems.push('a group needs a name and rules');
      continue;
    }
    for (const rule of group['rules']) {
      if (!isObject(rule)) continue;
      const name = String(rule['alert'] ?? rule['record'] ?? '(unnamed)');
      const where = `${group['name']}/${name}`;
      if ((rule['alert'] === undefined) === (rule['record'] === undefined)) {
        problems.push(`${where}: a rule is either an alert or a record`);
      }
      if (rule['alert'] !== undefined) {
        if (alerts.has(name)) problems.push(`${where}: alert defined twice`);
        alerts.add(name);
        if (!isObject(rule['labels']) || typeof rule['labels']['severity'] !== 'string') {
          problems.push(`${where}: needs labels.severity`);
        }
        if (!isObject(rule['annotations']) || typeof rule['annotations']['summary'] !== 'string') {
          problems.push(`${where}: needs annotations.summary`);
        }
      }
      if (rule['for'] !== undefined && !(typeof rule['for'] === 'string' && DURATION.test(rule['for']))) {
        problems.push(`${where}: for ${String(rule['for'])} is not a duration`);
      }
      if (typeof rule['expr'] !== 'string') {
        problems.push(`${where}: no expr`);
        continue;
      }
      expressions.push(rule['expr']);
      for (const error of parsePromql(rule['expr']).errors) problems.push(`${where}: ${error}`);
    }
  }
  return { problems, expressions };
}
