/**
 * @tessera/sdk/browser: opens the consent view in an iframe or a popup and speaks its postMessage protocol with strict
 * origin checks.
 */
import {
  PROTOCOL_SOURCE,
  PROTOCOL_VERSION,
  parseViewMessage,
  type ConsentEvents,
  type ConsentEventType,
  type ConsentTheme,
  type PartnerMessage,
} from './protocol.ts';

export { PROTOCOL_SOURCE, PROTOCOL_VERSION, parseViewMessage } from './protocol.ts';
export type { ConsentEvents, ConsentEventType, ConsentTheme, Empty, PartnerMessage, ViewMessage } from './protocol.ts';

export interface ConsentOptions {
  /**
   * The service's root, e.g. `https://api.example.com`: the view is `<baseUrl>/embed/consent`, and only its origin is
   * trusted.
   */
  baseUrl: string;
  /** The shop (`shop_…`) whose embed origins list this page's origin. */
  shopId: string;
  /**
   * The bounded buyer session your server minted (`mint_buyer_session`), or a function that fetches one. It is posted
   * to the view's origin when the view is ready, never put in a URL.
   */
  session: string | (() => string | Promise<string>);
  /** `iframe`: inside `container`, sized to the view's content; `popup`: a window of its own (open it from a click). */
  mode: 'iframe' | 'popup';
  /** Where the iframe goes (default `document.body`); ignored for popups. */
  container?: HTMLElement;
  theme?: ConsentTheme;
  /** The view's language (`en`, `de`, `es`, `fr`, `hu`, `pt-BR`); default the session's, else the buyer's. */
  lang?: string;
  /** The iframe's accessible name (default "Set up spending authority"). */
  title?: string;
}

/** The open view: subscribe to its events, and close it. */
export interface ConsentHandle {
  /** The iframe (mode `iframe`), else null. */
  readonly frame: HTMLIFrameElement | null;
  /** The popup window (mode `popup`), else null. */
  readonly popup: Window | null;
  /** Calls `listener` for each event of `type` the view sends; returns a function that unsubscribes. */
  on<T extends ConsentEventType>(type: T, listener: (event: ConsentEvents[T]) => void): () => void;
  /** Tells the view to keep the setup as a draft, stops listening and removes the iframe (closes the popup). */
  close(): void;
}

/** The URL-safe base64 of the theme's JSON (the view's `theme` parameter). */
export function encodeTheme(theme: ConsentTheme): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(JSON.stringify(theme))) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** The view's URL: shop, this page's origin, mode, theme and language; never the session. */
export function consentUrl(
  options: Pick<ConsentOptions, 'baseUrl' | 'shopId' | 'mode' | 'theme' | 'lang'>,
  partnerOrigin: string,
): URL {
  const base = new URL(options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`);
  if (base.protocol !== 'https:' && base.protocol !== 'http:') throw new TypeError('baseUrl must be an http(s) URL.');
  const url = new URL('embed/consent', base);
  url.searchParams.set('shop', options.shopId);
  url.searchParams.set('origin', partnerOrigin);
  url.searchParams.set('mode', options.mode);
  if (options.theme) url.searchParams.set('theme', encodeTheme(options.theme));
  if (options.lang) url.searchParams.set('lang', options.lang);
  return url;
}

/**
 * Opens the consent view. Messages are accepted only when they come from the view's origin (baseUrl's) AND from the
 * window this call opened; the session and `close` are posted to that origin only, never `*`.
 */
export function openConsent(options: ConsentOptions): ConsentHandle {
  const partnerOrigin = window.location.origin;
  if (partnerOrigin === 'null') throw new TypeError('openConsent needs a page with an origin (http or https).');
  const url = consentUrl(options, partnerOrigin);
  const viewOrigin = url.origin;
  const listeners = new Map<ConsentEventType, Set<(event: never) => void>>();
  let frame: HTMLIFrameElement | null = null;
  let popup: Window | null = null;
  let closed = false;

  const target = (): Window | null => (frame ? frame.contentWindow : popup);
  const post = (message: PartnerMessage): void => target()?.postMessage(message, viewOrigin);
  const emit = <T extends ConsentEventType>(type: T, event: ConsentEvents[T]): void => {
    for (const listener of Array.from(listeners.get(type) ?? []))
      (listener as (event: ConsentEvents[T]) => void)(event);
  };

  async function handOverSession(): Promise<void> {
    let token: string;
    try {
      token = typeof options.session === 'function' ? await options.session() : options.session;
    } catch (err) {
      emit('error', {
        code: 'session_unavailable',
        message: err instanceof Error ? err.message : 'The session could not be obtained.',
      });
      return;
    }
    if (!closed) post({ source: PROTOCOL_SOURCE, version: PROTOCOL_VERSION, type: 'session', token });
  }

  function onMessage(event: MessageEvent): void {
    if (closed || event.origin !== viewOrigin) return;
    const from = target();
    if (!from || event.source !== from) return;
    const message = parseViewMessage(event.data);
    if (!message) return;
    switch (message.type) {
      case 'ready':
        emit('ready', {});
        void handOverSession();
        return;
      case 'resize':
        if (frame) frame.style.height = `${message.height}px`;
        emit('resize', { height: message.height });
        return;
      case 'completed':
        emit('completed', { permissionId: message.permissionId });
        return;
      case 'cancelled':
        emit('cancelled', {});
        return;
      case 'error':
        emit('error', { code: message.code, message: message.message });
        return;
    }
  }

  window.addEventListener('message', onMessage);
  if (options.mode === 'iframe') {
    frame = document.createElement('iframe');
    frame.title = options.title ?? 'Set up spending authority';
    frame.allow = 'payment';
    frame.referrerPolicy = 'origin';
    frame.style.width = '100%';
    frame.style.border = '0';
    frame.src = url.href;
    (options.container ?? document.body).appendChild(frame);
  } else {
    popup = window.open(url.href, 'tessera-consent', 'popup,width=480,height=720');
    if (!popup) {
      window.removeEventListener('message', onMessage);
      throw new Error('The browser blocked the consent popup: call openConsent from a click handler.');
    }
  }

  return {
    frame,
    popup,
    on(type, listener) {
      let set = listeners.get(type);
      if (!set) listeners.set(type, (set = new Set()));
      set.add(listener);
      return () => void set.delete(listener);
    },
    close() {
      if (closed) return;
      post({ source: PROTOCOL_SOURCE, version: PROTOCOL_VERSION, type: 'close' });
      closed = true;
      window.removeEventListener('message', onMessage);
      frame?.remove();
      popup?.close();
    },
  };
}
