/** The per-call context a handler receives: who is calling, storage, time, logging and domain services. */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Clock } from './clock.ts';
import type { Principal } from './principal.ts';
import type { Services } from './services.ts';

/** What the adapter knows about the transport-level request (nothing transport-specific leaks further). */
export interface RequestInfo {
  /** The `Origin` header of a browser request, when there was one. */
  origin?: string;
  /** Preferred languages, most preferred first (from Accept-Language or an explicit choice). */
  languages?: string[];
  /** The surface the call came through. */
  surface: 'rest' | 'mcp' | 'a2a' | 'internal';
  /** Extra protocol headers a tool may need (e.g. ACP's API-Version), lower-cased names. */
  headers?: Record<string, string>;
}

export interface ToolContext {
  principal: Principal;
  /** Inside the tool's transaction when the tool is transactional; otherwise a fresh fork. */
  em: EntityManager;
  services: Services;
  clock: Clock;
  log: Logger;
  request: RequestInfo;
  idempotencyKey: string | undefined;
}
