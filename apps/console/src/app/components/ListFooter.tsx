import type { Pages } from '../use-pages';

/** Under a paged list: what an empty one means, or a button for the next page. */
export function ListFooter({ pages, empty }: { pages: Pages<unknown>; empty: string }) {
  return (
    <>
      {!pages.loading && pages.items.length === 0 && <p>{empty}</p>}
      {pages.hasMore && (
        <button type="button" className="secondary" aria-busy={pages.loading} onClick={pages.more}>
          Show more
        </button>
      )}
    </>
  );
}
