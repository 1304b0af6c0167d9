import type { WeftBrowserClient } from '@weft/sdk/browser';
import { createContext, useContext } from 'react';

export interface Session {
  client: WeftBrowserClient;
  signOut(): void;
}

export const SessionContext = createContext<Session | undefined>(undefined);

/** The signed-in client; pages below the shell are only rendered with one. */
export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside a signed-in page');
  return session;
}

export const useClient = () => useSession().client;
