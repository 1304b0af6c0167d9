// Presigned URLs carry their signature (X-Amz-Signature, X-Amz-Credential) in
// the query string: anyone holding one reads the object until it expires.
// ffmpeg names its input in every error, so error text is cleaned before it
// is stored or logged.

const URL_WITH_QUERY = /\b([a-z][a-z0-9+.-]*:\/\/[^\s?#'"<>]*)\?[^\s'"<>]*/gi;

/** `text` with the query string of every URL in it replaced by `?[redacted]`. */
export function redactUrls(text: string): string {
  // ffmpeg writes `url: message`; the colon is its, not the query's.
  return text.replace(
    URL_WITH_QUERY,
    (match: string, base: string) => `${base}?[redacted]${match.endsWith(':') ? ':' : ''}`,
  );
}
