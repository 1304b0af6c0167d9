import { WeftCore, type UploadOptions } from './core';
import { dispositionFilename } from './disposition';
import { WeftConnectionError } from './errors';
import { isNetworkError, sendWithRetries, sleep } from './retry';
import { apiError } from './transport';
import type { Asset } from './types';
import { sendXhr } from './xhr';

// The client of a web page: WeftCore's verbs, and files as a browser has them
// (a File from an <input> or a drop, a Blob to save or show).

export interface BrowserUploadOptions extends UploadOptions {
  /** Bytes of the request sent so far, of `total` (the file and its few hundred bytes of form around it). */
  onProgress?: (sent: number, total: number) => void;
}

export interface DownloadedBlob {
  blob: Blob;
  /** The name the gateway gives the file (Content-Disposition). */
  filename: string | undefined;
  contentType: string | null;
}

/**
 * The Weft API client for browsers. Give it `baseUrl` and `apiKey` or `token`:
 * a page has no environment to read them from. The gateway must be the page's
 * origin (or a proxy of it such as a dev server's), as it sends no CORS headers.
 */
export class WeftBrowserClient extends WeftCore {
  override readonly assets = {
    ...this.assetReads(),
    upload: (file: Blob | File, options: BrowserUploadOptions = {}) => this.upload(file, options),
    downloadBlob: (assetId: string, options: { signal?: AbortSignal } = {}) => this.downloadBlob(assetId, options),
  };

  /**
   * Uploads a File or Blob (`POST /assets/upload`), reporting its progress.
   * Sent with XMLHttpRequest, not the `fetch` option. Retried like the Node
   * client's uploads of bytes (on 429; with an external_id, on 5xx and broken
   * connections too); with an external_id already claimed, resolves to the
   * asset that holds it.
   */
  async upload(file: Blob | File, options: BrowserUploadOptions = {}): Promise<Asset> {
    const name = options.filename ?? (file as { name?: string }).name ?? 'upload';
    // A browser sends the part's name as UTF-8, which the gateway reads as such: only a name
    // given in the options goes as the `filename` field (the gateway then checks the type against it).
    const fields = { visibility: options.visibility, filename: options.filename, external_id: options.externalId };
    const url = `${this.transport.baseUrl}/assets/upload`;
    const response = await sendWithRetries(
      {
        method: 'POST',
        url,
        mode: options.externalId ? 'all' : 'rate-limit',
        signal: options.signal,
        send: () =>
          sendXhr({
            method: 'POST',
            url,
            headers: { ...this.transport.headers, accept: 'application/json' },
            body: uploadForm(fields, file, name),
            signal: options.signal,
            onProgress: options.onProgress,
          }),
      },
      this.retry,
    );
    if (response.status === 409 && options.externalId) {
      const existing = await this.assetHolding(options.externalId, options);
      if (existing) return existing;
    }
    if (!response.ok) throw await apiError('POST', response, undefined, url);
    return (await response.json()) as Asset;
  }

  /**
   * An asset's file as a Blob (`GET /assets/{id}/download`), with the name the
   * gateway gives it, e.g. for a download link (`URL.createObjectURL`). Held in
   * memory whole; a download cut short is started again (up to the retry limit).
   */
  async downloadBlob(assetId: string, options: { signal?: AbortSignal } = {}): Promise<DownloadedBlob> {
    const path = `/assets/${encodeURIComponent(assetId)}/download`;
    for (let attempt = 1; ; attempt++) {
      const response = await this.transport.send({ method: 'GET', path, signal: options.signal, timeoutMs: false });
      if (!response.ok) throw await apiError('GET', response);
      try {
        const blob = await response.blob();
        const filename = dispositionFilename(response.headers.get('content-disposition'));
        return { blob, filename, contentType: response.headers.get('content-type') };
      } catch (err) {
        if (options.signal?.aborted || !isNetworkError(err)) throw err;
        if (attempt >= this.retry.maxAttempts) {
          throw new WeftConnectionError('GET', `${this.transport.baseUrl}${path}`, err);
        }
        await sleep(500 * attempt, options.signal);
      }
    }
  }
}

/** Text fields first (the gateway reads them with the file), then the file part. */
function uploadForm(fields: Record<string, string | undefined>, file: Blob, filename: string): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) if (value !== undefined) form.append(name, value);
  form.append('file', file, filename);
  return form;
}
