import type { AssetSummary } from '@weft/sdk/browser';
import { useClient } from './client-context';
import { takePage } from './pages-of';
import { useLoad, type Loaded } from './use-load';

/** Most ids one `GET /assets?asset_ids=` answers on one page. */
const PAGE = 100;

/** The assets named by `ids` (results, proposals, an app's options) in one list request, by id. */
export function useAssets(ids: string[]): Loaded<Map<string, AssetSummary>> {
  const client = useClient();
  return useLoad(
    async (signal) => {
      if (ids.length === 0) return new Map();
      const assets = await takePage(client.assets.list({ asset_ids: ids, limit: PAGE }, { signal }), PAGE);
      return new Map(assets.map((a) => [a.id, a]));
    },
    [client, ids.join(',')],
  );
}
