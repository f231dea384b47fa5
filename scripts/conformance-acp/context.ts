/**
 * What the ACP conformance flows share (scripts/conformance-acp.ts): the ACP version driven, the schema bundles, and
 * the context each flow runs with.
 */
import type { IncomingHttpHeaders } from 'node:http';

/** The ACP API-Version every call sends and whose schemas are read. */
export const ACP_VERSION = '2026-04-17';

/** The ACP JSON Schema bundles the bodies are validated against. */
export type Bundle = 'schema.agentic_checkout.json' | 'schema.delegate_payment.json' | 'schema.feed.json';

/** What a flow is given: the server, the merchant, the calls and the checks. */
export interface Ctx {
  url: string;
  apiKey: string;
  shopId: string;
  /** Validates `body` against `$defs/<def>` of `bundle`; a failure is counted and printed, not thrown. */
  check(bundle: Bundle, def: string, body: unknown, label: string): void;
  /** An ACP call (API-Version, bearer, a fresh Idempotency-Key on POST); throws unless the status is `want`. */
  acp(
    method: 'GET' | 'POST',
    path: string,
    want: number,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<any>;
  /** A Tessera REST call with the merchant's key; throws unless the status is `want`. */
  rest(
    method: 'GET' | 'POST' | 'PUT' | 'PATCH',
    path: string,
    want: number,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<any>;
  /** A local HTTP receiver of webhooks (the server runs with WEBHOOK_ALLOW_LOOPBACK=true). */
  receiver: WebhookReceiver;
  /** Validates an ACP order-webhook body against `WebhookEvent` of openapi.agentic_checkout_webhook.yaml. */
  checkWebhook(body: unknown, label: string): void;
  /** An anonymous call (discovery is public); throws unless the status is `want`. */
  anon(path: string, want: number): Promise<any>;
}
/** One check of the command: requests sent, bodies handed to `check`. */
export type Flow = { name: string; run(ctx: Ctx): Promise<void> };

/** The local receiver of the server's order webhooks. */
export interface WebhookReceiver {
  url: string;
  /** The next request not yet taken (waits up to 60 s: the server's dispatcher runs every second). */
  next(): Promise<{ headers: IncomingHttpHeaders; body: string }>;
  close(): Promise<void>;
}
