import { parser } from '@prometheus-io/lezer-promql';

// PromQL checked with Prometheus' own grammar (the one its web UI uses).

export interface PromqlResult {
  errors: string[];
  /** Metric names the expression selects (VectorSelector identifiers). */
  metrics: string[];
}

export function parsePromql(expr: string): PromqlResult {
  const tree = parser.parse(expr);
  const errors: string[] = [];
  const metrics = new Set<string>();
  tree.iterate({
    enter(node) {
      if (node.type.isError) {
        errors.push(`syntax error at ${node.from}: ...${expr.slice(Math.max(0, node.from - 20), node.from + 20)}...`);
      }
      if (node.name === 'Identifier' && node.node.parent?.name === 'VectorSelector') {
        metrics.add(expr.slice(node.from, node.to));
      }
    },
  });
  if (expr.trim() === '') errors.push('empty expression');
  return { errors, metrics: [...metrics] };
}
