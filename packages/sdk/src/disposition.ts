// The file name a download's Content-Disposition gives, for the Node client
// (written to disk under it) and the browser client alike: no node:path here.

/** The name of an `attachment` Content-Disposition: `filename*` (RFC 8187) first, else `filename`. */
export function dispositionFilename(header: string | null): string | undefined {
  if (!header) return undefined;
  const star = /filename\*\s*=\s*UTF-8''([^;]+)/i.exec(header);
  let name: string | undefined;
  if (star) {
    try {
      name = decodeURIComponent(star[1]!.trim());
    } catch {
      name = undefined;
    }
  }
  name ??= /filename\s*=\s*"([^"]*)"/i.exec(header)?.[1] ?? /filename\s*=\s*([^;]+)/i.exec(header)?.[1]?.trim();
  // Never a path: only the last segment, and nothing that leaves the folder.
  const base = name?.replace(/\\/g, '/').replace(/\/+$/, '').split('/').pop();
  return base && base !== '.' && base !== '..' ? base : undefined;
}
