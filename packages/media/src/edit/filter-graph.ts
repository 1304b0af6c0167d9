// Writing ffmpeg filter graphs (-filter_complex) as text. Every value put in
// one is a number or a label this code chose: nothing a flow author wrote
// reaches the graph as text.

/** A number as a filter argument: at most microsecond precision, never in exponent notation. */
export function num(value: number): string {
  const text = String(Number(value.toFixed(6)));
  return text === '-0' ? '0' : text;
}

/** One chain of a graph, `[in]f1,f2[out]`; no filters is a pass-through (`null`, or `anull` for audio). */
export function chain(
  inputs: readonly string[],
  filters: readonly string[],
  outputs: readonly string[],
  kind: 'video' | 'audio' = 'video',
): string {
  const body = filters.length > 0 ? filters.join(',') : kind === 'video' ? 'null' : 'anull';
  return `${inputs.map((l) => `[${l}]`).join('')}${body}${outputs.map((l) => `[${l}]`).join('')}`;
}

/** The chains of a graph as -filter_complex's argument. */
export function graph(chains: readonly string[]): string {
  return chains.join(';');
}

/** An input stream's label in a graph: `0:3` is stream 3 of the first input. */
export function streamOf(input: number, stream: number | string): string {
  return `${input}:${stream}`;
}
