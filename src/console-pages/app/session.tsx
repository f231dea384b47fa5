/**
 * The signed-in person, their organization and shops, and the SDK client acting for them, shared by every view
 * through `useSession()`. Views never build a client of their own.
 */
import { createContext, type ComponentChildren } from 'preact';
import { useCallback, useContext, useEffect, useMemo, useState } from 'preact/hooks';
import type { GetConsoleSessionOutput, ListShopsOutput } from '@tessera/sdk';
import { makeClient, type Client } from './api.ts';

/**
 * A console session as the restore, sign-in and invitation operations return it; `token` only when the server answered
 * a bearer instead of setting the cookie.
 */
export type Me = GetConsoleSessionOutput & { token?: string };
export type Shop = ListShopsOutput['shops'][number];

export interface Session {
  /** The SDK client, acting for the signed-in person (public operations only when signed out). */
  client: Client;
  /** The signed-in person, or null. */
  me: Me | null;
  /** Whether the start-up restore has finished (views wait for it before deciding to send to sign-in). */
  restored: boolean;
  isOwner: boolean;
  /** The organization's shops (empty until loaded). */
  shops: readonly Shop[];
  /** Whether the shops have been loaded for the signed-in person (an organization may have none). */
  shopsLoaded: boolean;
  /** Loads the shops again (after a shop is created, renamed or deleted). */
  reloadShops: () => Promise<void>;
  /** Starts acting as `me` (after sign-in, an accepted invitation, or switching organization). */
  signedIn: (me: Me) => void;
  /** Ends the session (server-side where the API offers it) and forgets it here. */
  signOut: () => Promise<void>;
}

const SessionContext = createContext<Session | null>(null);

/** The session of the view being rendered. */
export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside <SessionProvider>');
  return session;
}

/** Holds the session for the application. */
export function SessionProvider(props: { children: ComponentChildren }) {
  const [me, setMe] = useState<Me | null>(null);
  const [restored, setRestored] = useState(false);
  const [shops, setShops] = useState<readonly Shop[]>([]);
  // The session the shops were last loaded for: they count as loaded only for the current one.
  const [shopsFor, setShopsFor] = useState<Me | null | undefined>(undefined);
  const client = useMemo(() => makeClient(me?.token), [me]);

  const reloadShops = useCallback(async () => {
    if (!me) return setShops([]);
    setShops((await client.call('list_shops')).shops);
  }, [client, me]);

  useEffect(() => {
    // A reload keeps the session: the cookie is still there, and the server says whose it is (401: signed out). The
    // HttpOnly cookie is invisible here; its readable companion says whether there is one to ask about.
    if (!/(?:^|;\s*)(?:__Host-)?tessera_console_signed_in=1(?:;|$)/.test(document.cookie)) {
      setRestored(true);
      return;
    }
    client
      .call('get_console_session')
      .then(
        (restoredMe) => setMe(restoredMe),
        () => setMe(null),
      )
      .finally(() => setRestored(true));
  }, []);

  useEffect(() => {
    reloadShops()
      .catch(() => setShops([]))
      .finally(() => setShopsFor(me));
  }, [reloadShops]);
  const shopsLoaded = me !== null && shopsFor === me;

  const value = useMemo<Session>(
    () => ({
      client,
      me,
      restored,
      isOwner: me?.role === 'owner',
      shops,
      shopsLoaded,
      reloadShops,
      signedIn: setMe,
      signOut: async () => {
        // Ended server-side (the cookie is cleared too); forgotten here whatever the answer.
        await client.call('end_console_session').catch(() => undefined);
        setMe(null);
        setShops([]);
      },
    }),
    [client, me, restored, shops, shopsLoaded, reloadShops],
  );
  return <SessionContext.Provider value={value}>{props.children}</SessionContext.Provider>;
}
