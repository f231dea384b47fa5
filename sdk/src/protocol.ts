/** The consent view's postMessage protocol, version 1 (docs/embedding.md): the messages both sides exchange. */

/** Every message carries this marker and version; anything else is not a protocol message. */
export const PROTOCOL_SOURCE = 'tessera-consent';
export const PROTOCOL_VERSION = 1;

/** A partner palette: CSS hex colours, and a font family name (without one the view keeps its default typeface). */
export interface ConsentTheme {
  background: string;
  surface: string;
  text: string;
  accent: string;
  accentText?: string;
  font?: string;
}

/** A message without a payload. */
export type Empty = Record<never, never>;

/** What the view reports to the embedding page, by event type. */
export interface ConsentEvents {
  /** The view is loaded and waits for the session (the SDK then hands it over). */
  ready: Empty;
  /** The view's content height in px (the SDK sizes the iframe to it). */
  resize: { height: number };
  /** The buyer granted the permission. */
  completed: { permissionId: string };
  /** The buyer confirmed "Discard this setup?": the setup is cancelled. */
  cancelled: Empty;
  /** The view cannot go on: a stable code from the API's error table or the view's own (docs/embedding.md). */
  error: { code: string; message: string };
}

export type ConsentEventType = keyof ConsentEvents;

/** A message from the view: `{ source: 'tessera-consent', version: 1, type, ...payload }`. */
export type ViewMessage = {
  [T in ConsentEventType]: {
    source: typeof PROTOCOL_SOURCE;
    version: typeof PROTOCOL_VERSION;
    type: T;
  } & ConsentEvents[T];
}[ConsentEventType];

/** A message to the view: the bounded buyer session, or `close` (keep the setup as a draft). */
export type PartnerMessage =
  | { source: typeof PROTOCOL_SOURCE; version: typeof PROTOCOL_VERSION; type: 'session'; token: string }
  | { source: typeof PROTOCOL_SOURCE; version: typeof PROTOCOL_VERSION; type: 'close' };

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object';

/** The view's message in `data`, or undefined when it is not a well-formed version 1 message from the view. */
export function parseViewMessage(data: unknown): ViewMessage | undefined {
  if (!isObject(data) || data.source !== PROTOCOL_SOURCE || data.version !== PROTOCOL_VERSION) return undefined;
  switch (data.type) {
    case 'ready':
      return { source: PROTOCOL_SOURCE, version: PROTOCOL_VERSION, type: 'ready' };
    case 'cancelled':
      return { source: PROTOCOL_SOURCE, version: PROTOCOL_VERSION, type: 'cancelled' };
    case 'resize':
      return Number.isInteger(data.height) && (data.height as number) >= 0
        ? { source: PROTOCOL_SOURCE, version: PROTOCOL_VERSION, type: 'resize', height: data.height as number }
        : undefined;
    case 'completed':
      return typeof data.permissionId === 'string' && data.permissionId
        ? { source: PROTOCOL_SOURCE, version: PROTOCOL_VERSION, type: 'completed', permissionId: data.permissionId }
        : undefined;
    case 'error':
      return typeof data.code === 'string' && typeof data.message === 'string'
        ? { source: PROTOCOL_SOURCE, version: PROTOCOL_VERSION, type: 'error', code: data.code, message: data.message }
        : undefined;
    default:
      return undefined;
  }
}
