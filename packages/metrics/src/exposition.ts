// Reading the text exposition format back, for tests and tools that check
// what a process exposes (not used when serving).

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  samples: Sample[];
  /** Metric family name → type, from the `# TYPE` lines. */
  types: Map<string, string>;
  /**
   * Every series name a query may use: each family's name, plus `_bucket`,
   * `_sum` and `_count` for histograms (`_sum`, `_count` for summaries),
   * whether or not it has samples yet.
   */
  seriesNames(): Set<string>;
  /** Sum of the samples named `name` whose labels include `labels`. */
  value(name: string, labels?: Record<string, string>): number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

function unescape(value: string): string {
  return value.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
}

export function parseExposition(text: string): Exposition {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (line.startsWith('# TYPE ')) {
      const [name, type] = line.slice('# TYPE '.length).split(' ');
      if (name && type) types.set(name, type);
      continue;
    }
    if (line === '' || line.startsWith('#')) continue;
    const match = SAMPLE.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(LABEL)) labels[key!] = unescape(value!);
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return {
    samples,
    types,
    seriesNames() {
      const names = new Set(samples.map((s) => s.name));
      for (const [name, type] of types) {
        names.add(name);
        if (type === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(name + suffix);
        if (type === 'summary') for (const suffix of ['_sum', '_count']) names.add(name + suffix);
      }
      return names;
    },
    value(name, labels = {}) {
      let sum = 0;
      for (const s of samples) {
        if (s.name !== name) continue;
        if (Object.entries(labels).every(([k, v]) => s.labels[k] === v)) sum += s.value;
      }
      return sum;
    },
  };
}
