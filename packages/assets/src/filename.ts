import { extensionOf } from '@weft/media';

// Display names come from clients, so they are cleaned before they are stored
// and encoded again when they go out in a header. They are never used as
// storage keys (see @weft/storage keys.ts).

const MAX_NAME_LENGTH = 255;

// C0 and C1 controls (CR/LF would split headers), and the invisible
// formatting characters that make `evil‮gpj.exe` display as `evilexe.jpg`.
// eslint-disable-next-line no-control-regex
const INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g;
const RESERVED = /["<>:|?*]/g;

/** The last path segment of `raw`, without controls or reserved characters; null when nothing is left. */
export function sanitizeFilename(raw: string | undefined | null): string | null {
  if (!raw) return null;
  const lastSegment = raw.normalize('NFC').split(/[/\\]/).pop() ?? '';
  let name = lastSegment.replace(INVISIBLE, '').replace(RESERVED, '_').trim();
  // Leading dots would make `..` or a hidden file out of a name.
  name = name.replace(/^\.+/, '').trim();
  const chars = Array.from(name);
  if (chars.length > MAX_NAME_LENGTH) {
    const dot = name.lastIndexOf('.');
    const ext = dot > 0 && name.length - dot <= 11 ? name.slice(dot) : '';
    name = chars.slice(0, MAX_NAME_LENGTH - ext.length).join('') + ext;
  }
  return name === '' ? null : name;
}

/**
 * `attachment` Content-Disposition for a sanitised name: an ASCII fallback
 * for old clients and the exact name as RFC 8187 `filename*`.
 */
export function attachmentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]/g, '_').replace(/["\\%]/g, '_');
  const encoded = encodeURIComponent(filename).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

/** The name to download as: the display name with the served extension (replacing the original's for a conversion). */
export function displayName(filename: string | null, assetId: string, extension: string, converted = false): string {
  let base = filename ?? assetId;
  const current = extensionOf(base);
  if (current === extension) return base;
  if (converted && current) base = base.slice(0, -(current.length + 1));
  return `${base}.${extension}`;
}
