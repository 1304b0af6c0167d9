import { useEffect } from 'react';

/**
 * Calls `tick` every `ms` while the tab is visible, and at once when it
 * becomes visible again: a list that follows changes nobody announces
 * without asking while nobody looks at it.
 */
export function useWhileVisible(tick: () => void, ms: number): void {
  useEffect(() => {
    const visible = () => document.visibilityState === 'visible';
    const timer = setInterval(() => visible() && tick(), ms);
    const onChange = () => visible() && tick();
    document.addEventListener('visibilitychange', onChange);
    return () => {
      clearInterval(timer);
      document.removeEventListener('visibilitychange', onChange);
    };
  }, [tick, ms]);
}
