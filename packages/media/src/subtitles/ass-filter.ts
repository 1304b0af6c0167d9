// ffmpeg's `ass` filter over a script file. The path is escaped twice, as
// the filter option's value and again within the filtergraph, so any path
// (colons, quotes, commas) reaches libass as it is.

function escapeOptionValue(text: string): string {
  return text.replace(/[\\':]/g, (c) => `\\${c}`);
}

function escapeGraph(text: string): string {
  return text.replace(/[\\'[\],;]/g, (c) => `\\${c}`);
}

/** The `ass` filter rendering the script at `scriptPath` onto the video. */
export function assFilter(scriptPath: string): string {
  return `ass=filename=${escapeGraph(escapeOptionValue(scriptPath))}`;
}
