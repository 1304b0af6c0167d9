import type { Writable } from 'node:stream';
import { WeftCore, type UploadOptions } from './core';
import { writeDownload, type Downloaded } from './download';
import { isNetworkError, sleep } from './retry';
import { runVerb, type RunOptions } from './run';
import { apiError } from './transport';
import type { AnyRun, Asset } from './types';
import { multipart, uploadBody, type FileSource } from './upload';
import type { RunInputs } from './inputs';

/**
 * The Weft API client for Node.js: WeftCore's verbs, and those that read or
 * write files (upload from a path or a stream, download to disk, run with
 * files among the inputs).
 */
export class WeftClient extends WeftCore {
  override readonly assets = {
    ...this.assetReads(),
    upload: (source: string | FileSource, options: UploadOptions = {}) => this.upload(source, options),
    download: (assetId: string, destination: string | Writable, options: { signal?: AbortSignal } = {}) =>
      this.download(assetId, destination, options),
  };

  /**
   * Uploads a file: a path, bytes (Buffer, Uint8Array, Blob) or a stream. Paths
   * and bytes are retried like any request (and, with an external_id, on 5xx and
   * broken connections too); a stream can be read once, so it is sent once.
   * With an external_id already claimed, resolves to the asset that holds it.
   */
  async upload(source: string | FileSource, options: UploadOptions = {}): Promise<Asset> {
    const file = uploadBody(source, options.filename);
    const explicitName = options.filename ?? (/[^\x20-\x7e]/.test(file.filename) ? file.filename : undefined);
    const form = multipart(
      { visibility: options.visibility, filename: explicitName, external_id: options.externalId },
      file,
    );
    const response = await this.transport.send({
      method: 'POST',
      path: '/assets/upload',
      headers: { 'content-type': form.contentType, accept: 'application/json' },
      body: () => form.body(),
      mode: !file.replayable ? 'none' : options.externalId ? 'all' : 'rate-limit',
      signal: options.signal,
      timeoutMs: false,
    });
    if (response.status === 409 && options.externalId) {
      await response.body?.cancel().catch(() => undefined);
      const existing = await this.assetHolding(options.externalId, options);
      if (existing) return existing;
    }
    if (!response.ok) throw await apiError('POST', response);
    return (await response.json()) as Asset;
  }

  /**
   * Downloads an asset's file into a directory (under the name the gateway
   * gives it), to a file path, or into a writable stream. A file appears only
   * once complete; a download cut short is started again (up to the retry limit).
   */
  async download(
    assetId: string,
    destination: string | Writable,
    options: { signal?: AbortSignal } = {},
  ): Promise<Downloaded> {
    const { retry } = this;
    for (let attempt = 1; ; attempt++) {
      const response = await this.transport.send({
        method: 'GET',
        path: `/assets/${encodeURIComponent(assetId)}/download`,
        signal: options.signal,
        timeoutMs: false,
      });
      if (!response.ok) throw await apiError('GET', response);
      try {
        return await writeDownload(response, destination, assetId, options.signal);
      } catch (err) {
        // Only a file can be written again from the start; a stream has had part of it.
        const again = typeof destination === 'string' && isNetworkError(err) && attempt < retry.maxAttempts;
        if (!again || options.signal?.aborted) throw err;
        await sleep(500 * attempt, options.signal);
      }
    }
  }

  /**
   * Runs an agent or an app (by id or by name) with `inputs`, uploading the
   * files among them first, and resolves to the final run. With an
   * `externalId`, running the same thing again follows the first run instead
   * of starting another. See RunOptions.
   */
  run(target: string, inputs: RunInputs = {}, options: RunOptions = {}): Promise<AnyRun> {
    return runVerb(this, target, inputs, options);
  }
}
