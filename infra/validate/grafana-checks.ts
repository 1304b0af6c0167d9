import { isObject } from './files';
import { parsePromql } from './promql';

// infra/grafana: the provisioning files Grafana reads at start and the
// dashboard JSON (structure Grafana needs to import it, every query parsed).

export function checkDatasources(provisioning: unknown): string[] {
  if (!isObject(provisioning) || provisioning['apiVersion'] !== 1) return ['datasources: apiVersion must be 1'];
  const list = provisioning['datasources'];
  if (!Array.isArray(list) || list.length === 0) return ['datasources: none'];
  return list.flatMap((ds) =>
    isObject(ds) && typeof ds['name'] === 'string' && typeof ds['type'] === 'string' && typeof ds['url'] === 'string'
      ? []
      : ['datasources: each needs name, type and url'],
  );
}

export function checkDashboardProviders(provisioning: unknown): string[] {
  if (!isObject(provisioning) || provisioning['apiVersion'] !== 1) return ['dashboards: apiVersion must be 1'];
  const list = provisioning['providers'];
  if (!Array.isArray(list) || list.length === 0) return ['dashboards: no providers'];
  return list.flatMap((p) =>
    isObject(p) && p['type'] === 'file' && isObject(p['options']) && typeof p['options']['path'] === 'string'
      ? []
      : ['dashboards: each provider needs type file and options.path'],
  );
}

interface Panel {
  id?: unknown;
  type?: unknown;
  title?: unknown;
  gridPos?: unknown;
  targets?: unknown;
  panels?: unknown;
}

export function checkDashboard(
  dashboard: unknown,
  datasourceUids: string[],
): { problems: string[]; expressions: string[] } {
  const problems: string[] = [];
  const expressions: string[] = [];
  if (!isObject(dashboard)) return { problems: ['not an object'], expressions };
  for (const key of ['uid', 'title']) if (typeof dashboard[key] !== 'string') problems.push(`dashboard needs ${key}`);
  if (typeof dashboard['schemaVersion'] !== 'number') problems.push('dashboard needs schemaVersion');
  if (!Array.isArray(dashboard['panels']) || dashboard['panels'].length === 0) problems.push('dashboard has no panels');
  const ids = new Set<unknown>();
  const visit = (panel: Panel) => {
    const where = `panel ${String(panel.title ?? panel.id)}`;
    if (typeof panel.id !== 'number') problems.push(`${where}: id must be a number`);
    else if (ids.has(panel.id)) problems.push(`${where}: duplicate id ${panel.id}`);
    ids.add(panel.id);
    if (typeof panel.type !== 'string' || typeof panel.title !== 'string')
      problems.push(`${where}: needs type and title`);
    const grid = panel.gridPos;
    if (!isObject(grid) || !['x', 'y', 'w', 'h'].every((k) => typeof grid[k] === 'number')) {
      problems.push(`${where}: gridPos needs x, y, w, h`);
    } else if ((grid['x'] as number) + (grid['w'] as number) > 24) {
      problems.push(`${where}: wider than the 24-column grid`);
    }
    if (panel.type === 'row') {
      for (const child of Array.isArray(panel.panels) ? panel.panels : []) visit(child as Panel);
      return;
    }
    const targets = Array.isArray(panel.targets) ? panel.targets : [];
    if (targets.length === 0) problems.push(`${where}: no queries`);
    for (const target of targets) {
      if (!isObject(target) || typeof target['expr'] !== 'string') {
        problems.push(`${where}: a target without expr`);
        continue;
      }
      const uid = isObject(target['datasource']) ? target['datasource']['uid'] : undefined;
      if (uid !== undefined && !datasourceUids.includes(String(uid))) {
        problems.push(`${where}: datasource uid ${String(uid)} is not provisioned`);
      }
      expressions.push(target['expr']);
      for (const error of parsePromql(target['expr']).errors) problems.push(`${where}: ${error}`);
    }
  };
  for (const panel of Array.isArray(dashboard['panels']) ? dashboard['panels'] : []) visit(panel as Panel);
  return { problems, expressions };
}
