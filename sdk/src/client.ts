/**
 * The typed REST client for Node and the browser: global fetch, no dependencies, types generated from the tool
 * registry.
 */
import { TesseraError } from './error.ts';
import {
  OPERATIONS,
  type ConfirmInput,
  type ConfirmOutput,
  type MintBuyerSessionInput,
  type MintBuyerSessionOutput,
  type OperationId,
  type Operations,
  type QuoteInput,
  type QuoteOutput,
  type ReserveInput,
  type ReserveOutput,
} from './operations.generated.ts';
import { isErrorBody, requestOf, retryAfterOf, uuid } from './request.ts';
import { jitteredDelay, RETRYABLE, wait, type RetryOptions } from './retry.ts';

export { jitteredDelay, type RetryOptions } from './retry.ts';

/**
 * An API key holding `mandates:attest` (an attest-only key, issued to organizations the service's staff enabled for
 * attested consent). Only a client created with one may mint with `merchantAttested: true`. Make one with
 * `attestKey()`.
 */
export type AttestKey = string & { readonly __tesseraKey: 'attest' };

/** Declares that `token` is an attest key (the SDK cannot see a key's scopes; the server checks them on every call). */
export function attestKey(token: string): AttestKey {
  return token as AttestKey;
}

/** Whether a client was created with an attest key. */
export type IsAttest<K> = K extends AttestKey ? true : false;

/**
 * What `mint_buyer_session` accepts from a client: `merchantAttested: true` only (and always) with an attest key,
 * since an attest-only key mints attested sessions alone; a plain mint with any other credential.
 */
export type MintInput<A extends boolean> = Omit<MintBuyerSessionInput, 'merchantAttested'> &
  (A extends true ? { merchantAttested: true } : { merchantAttested?: false });

/** An operation's input as this client may send it. */
export type InputOf<Op extends OperationId, A extends boolean = false> = Op extends 'mint_buyer_session'
  ? MintInput<A>
  : Operations[Op]['input'];

/** An operation's output. */
export type OutputOf<Op extends OperationId> = Operations[Op]['output'];

/** The input argument, optional when the operation needs no field. */
type InputArgs<Op extends OperationId, A extends boolean> =
  {} extends InputOf<Op, A>
    ? [input?: InputOf<Op, A>, options?: CallOptions]
    : [input: InputOf<Op, A>, options?: CallOptions];

export interface ClientOptions<K extends string = string> {
  /** The service's root, e.g. `https://api.example.com` (the client adds `/v1/...`). */
  baseUrl: string;
  /**
   * The bearer: an API key (`tsk_…`, or `attestKey(…)`), an agent token, a console or buyer session. None for
   * discovery.
   */
  token?: K;
  /** Another fetch (a proxy-aware one, a test double); default the global `fetch`. */
  fetch?: typeof fetch;
  /** Extra headers sent with every call (never the Authorization header: that is `token`). */
  headers?: Record<string, string>;
  /** Sends a call again after a refusal that asks for it (`retries`, default 0: never). */
  retry?: RetryOptions;
  /**
   * A page served by the service itself acting with its cookie session (`console` for the console, `buyer` for the
   * buyer pages): every call sends `X-Tessera-Session` and the same-origin cookie, never a bearer. The cookie is set by
   * the sign-in calls made this way and ended by `end_console_session` / `end_buyer_session`; the server refuses the
   * header from another site. Browsers only (a page on the service's origin); throws a TypeError with `token`.
   */
  session?: 'console' | 'buyer';
}

export interface CallOptions {
  /**
   * The `Idempotency-Key` of a call that takes one (`OPERATIONS[op].idempotency` is not `none`). When omitted the
   * client generates one; to retry a call whose answer was lost, send it again with the key from the first attempt
   * (`TesseraError.idempotencyKey`, `TesseraResponse.idempotencyKey`): the server replays the stored outcome.
   */
  idempotencyKey?: string;
  /** Aborts the request. */
  signal?: AbortSignal;
}

/** A successful answer with its HTTP details (`confirm` answers 202 while an asynchronous provider confirms). */
export interface TesseraResponse<T> {
  status: number;
  data: T;
  /** The key the call was sent with, when it took one. */
  idempotencyKey: string | undefined;
  /** True when the server replayed a stored outcome for this key (`Idempotent-Replayed: true`). */
  replayed: boolean;
}

export interface TesseraClient<A extends boolean = false> {
  readonly baseUrl: string;
  /**
   * Calls any REST operation by its operationId (the tool name) and returns its output; a refusal throws TesseraError.
   */
  call<Op extends OperationId>(op: Op, ...args: InputArgs<Op, A>): Promise<OutputOf<Op>>;
  /** Like `call`, with the status, the idempotency key and whether the answer was replayed. */
  send<Op extends OperationId>(op: Op, ...args: InputArgs<Op, A>): Promise<TesseraResponse<OutputOf<Op>>>;
  /** Prices a purchase and checks the tier's restrictions; holds nothing. */
  quote(input: QuoteInput, options?: CallOptions): Promise<QuoteOutput>;
  /** Turns a quote into a hold (sends an Idempotency-Key, generated when none is given). */
  reserve(input: ReserveInput, options?: CallOptions): Promise<ReserveOutput>;
  /** Pays for a hold; `reservation.state` is `confirming` while an asynchronous provider confirms (HTTP 202). */
  confirm(input: ConfirmInput, options?: CallOptions): Promise<ConfirmOutput>;
  /**
   * Mints a bounded buyer session. `merchantAttested: true` type-checks only on a client created with an attest key;
   * where the organization is not enabled for attested consent the call throws `403 merchant_consent_not_enabled`.
   */
  mintBuyerSession(input: MintInput<A>, options?: CallOptions): Promise<MintBuyerSessionOutput>;
}

/**
 * Creates a client. With `token: attestKey(key)` it is an attest client, the only kind that may mint attested sessions.
 */
export function createClient<K extends string = string>(options: ClientOptions<K>): TesseraClient<IsAttest<K>> {
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  const baseUrl = options.baseUrl;
  if (options.session && options.token)
    throw new TypeError('A client acts with a cookie session or with a token, not both.');

  const retries = options.retry?.retries ?? 0;
  const delay = options.retry?.delay ?? jitteredDelay;
  const maxDelayMs = options.retry?.maxDelayMs ?? 10_000;
  if (!Number.isInteger(retries) || retries < 0)
    throw new TypeError(`retry.retries must be a whole number of at least 0, not ${String(retries)}.`);
  if (!(maxDelayMs >= 0))
    throw new TypeError(`retry.maxDelayMs must be a number of at least 0, not ${String(maxDelayMs)}.`);

  async function send(op: OperationId, input: object = {}, call: CallOptions = {}): Promise<TesseraResponse<unknown>> {
    const spec = OPERATIONS[op];
    if (!spec) throw new TypeError(`Unknown operation: ${String(op)}.`);
    const { url, body } = requestOf(baseUrl, op, input as Record<string, unknown>);
    const headers: Record<string, string> = { ...options.headers, accept: 'application/json' };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (options.session) headers['x-tessera-session'] = options.session;
    if (body !== undefined) headers['content-type'] = 'application/json';
    // One key for the call and all its retries.
    const idempotencyKey = spec.idempotency === 'none' ? undefined : (call.idempotencyKey ?? uuid());
    if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
    for (let attempt = 1; ; attempt++) {
      try {
        return await sendOnce(spec.method, url, headers, body, idempotencyKey, call.signal);
      } catch (err) {
        if (
          !(err instanceof TesseraError) ||
          !RETRYABLE.has(err.code) ||
          err.retryAfter === undefined ||
          attempt > retries
        )
          throw err;
        const ms = delay(attempt, err.retryAfter);
        if (!(ms >= 0) || ms > maxDelayMs) throw err;
        await wait(ms, call.signal);
      }
    }
  }

  async function sendOnce(
    method: string,
    url: URL,
    headers: Record<string, string>,
    body: string | undefined,
    idempotencyKey: string | undefined,
    signal: AbortSignal | undefined,
  ): Promise<TesseraResponse<unknown>> {
    const res = await doFetch(url, {
      method,
      headers,
      body,
      signal: signal ?? null,
      ...(options.session ? { credentials: 'same-origin' as const } : {}),
    });
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    if (!res.ok) {
      if (!isErrorBody(parsed)) {
        throw new TesseraError({
          status: res.status,
          code: 'unexpected_response',
          message: `HTTP ${res.status} without an error body.`,
          idempotencyKey,
        });
      }
      const { code, message, details } = parsed;
      throw new TesseraError({
        status: res.status,
        code,
        message,
        details,
        retryAfter: retryAfterOf(parsed, res.headers),
        idempotencyKey,
      });
    }
    if (parsed === undefined || typeof parsed !== 'object') {
      throw new TesseraError({
        status: res.status,
        code: 'unexpected_response',
        message: `HTTP ${res.status} without a JSON body.`,
        idempotencyKey,
      });
    }
    return {
      status: res.status,
      data: parsed,
      idempotencyKey,
      replayed: res.headers.get('idempotent-replayed') === 'true',
    };
  }

  const client = {
    baseUrl,
    send,
    async call(op: OperationId, input?: object, call?: CallOptions) {
      return (await send(op, input, call)).data;
    },
    quote: (input: QuoteInput, call?: CallOptions) => client.call('quote', input, call),
    reserve: (input: ReserveInput, call?: CallOptions) => client.call('reserve', input, call),
    confirm: (input: ConfirmInput, call?: CallOptions) => client.call('confirm', input, call),
    mintBuyerSession: (input: MintInput<boolean>, call?: CallOptions) => client.call('mint_buyer_session', input, call),
  };
  return client as unknown as TesseraClient<IsAttest<K>>;
}
