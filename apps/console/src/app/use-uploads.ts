import type { Asset } from '@weft/sdk/browser';
import { useState } from 'react';
import { useClient } from './client-context';

export interface Upload {
  name: string;
  sent: number;
  total: number;
  asset?: Asset;
  error?: unknown;
}

export interface Uploads {
  /** Every file sent so far (or since the last `replace`), in the order chosen. */
  list: Upload[];
  /**
   * Uploads `files` at once, each with its own progress; answers the assets
   * stored, in order (a failed file is left out and keeps its error in `list`).
   * `replace` starts a new list instead of adding to it.
   */
  send(files: File[], options?: { replace?: boolean; onUploaded?(asset: Asset): void }): Promise<Asset[]>;
}

/** Files uploaded from a picker, with what each one's progress is. */
export function useUploads(): Uploads {
  const client = useClient();
  const [list, setList] = useState<Upload[]>([]);

  async function send(files: File[], { replace = false, onUploaded }: Parameters<Uploads['send']>[1] = {}) {
    const base = replace ? [] : list;
    const start = base.length;
    setList([...base, ...files.map((f) => ({ name: f.name, sent: 0, total: f.size }))]);
    const stored = await Promise.all(
      files.map(async (file, i) => {
        const update = (patch: Partial<Upload>) =>
          setList((all) => all.map((u, j) => (j === start + i ? { ...u, ...patch } : u)));
        try {
          const asset = await client.upload(file, {
            filename: file.name,
            onProgress: (sent, total) => update({ sent, total }),
          });
          update({ asset, sent: file.size, total: file.size });
          onUploaded?.(asset);
          return asset;
        } catch (error) {
          update({ error });
          return undefined;
        }
      }),
    );
    return stored.filter((asset): asset is Asset => asset !== undefined);
  }

  return { list, send };
}
