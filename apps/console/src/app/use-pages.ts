import { useCallback, useEffect, useRef, useState } from 'react';

export interface Pages<T> {
  items: T[];
  error: unknown;
  loading: boolean;
  hasMore: boolean;
  more(): void;
  reload(): void;
}

/**
 * A list read page by page from one of the SDK's list iterators: `size` items
 * at first, `size` more on `more()`; a new `open` (the filters changed) starts over.
 */
export function usePages<T>(open: (signal: AbortSignal) => AsyncGenerator<T>, size: number, deps: readonly unknown[]) {
  const [state, setState] = useState<{ items: T[]; error?: unknown; loading: boolean; hasMore: boolean }>({
    items: [],
    loading: true,
    hasMore: false,
  });
  const source = useRef<{ items: AsyncGenerator<T>; controller: AbortController }>(undefined);
  const [generation, setGeneration] = useState(0);

  const pull = useCallback(async () => {
    const current = source.current;
    if (!current) return;
    setState((s) => ({ ...s, loading: true }));
    const got: T[] = [];
    try {
      let done = false;
      while (got.length < size) {
        const next = await current.items.next();
        if (next.done) {
          done = true;
          break;
        }
        got.push(next.value);
      }
      if (source.current !== current) return;
      setState((s) => ({ items: [...s.items, ...got], loading: false, hasMore: !done }));
    } catch (error) {
      if (source.current === current && !current.controller.signal.aborted) {
        setState((s) => ({ ...s, error, loading: false }));
      }
    }
  }, [size]);

  useEffect(() => {
    const controller = new AbortController();
    source.current = { items: open(controller.signal), controller };
    setState({ items: [], loading: true, hasMore: false });
    void pull();
    return () => {
      controller.abort();
      source.current = undefined;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, generation]);

  return {
    ...state,
    error: state.error,
    more: () => void pull(),
    reload: () => setGeneration((g) => g + 1),
  } satisfies Pages<T>;
}
