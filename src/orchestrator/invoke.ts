/**
 * The single path every surface calls: look up, authenticate, authorize, validate, idempotency,
 * run in a transaction, validate the output, map errors through the closed table.
 */
import type { Logger } from 'pino';
import { ap2Refusal, isAp2Payload } from '../domain/ap2/refusal.ts';
import { authorize, mayList } from './authorize.ts';
import { canonicalJson, sha256Hex } from '../kernel/canonical-json.ts';
import type { RequestInfo, Services } from '../domain/context.ts';
import { describeError, ToolError, type ErrorBody } from '../kernel/errors.ts';
import { inputShapeProblem, inputShapeError } from '../kernel/input-shape.ts';
import { IdempotencyStore, Replay, type CallKey } from '../storage/idempotency-store.ts';
import { isPoolExhausted } from '../storage/database.ts';
import { principalKey, type Principal } from '../kernel/principal.ts';
import type { AnyTool } from './tool.ts';
import type { Arrival } from '../domain/purchase/reserve-admission.ts';
import { CallParts } from './call-parts.ts';
import { auditCall, auditAfterCommit } from './audit.ts';
import { parseInput } from './validate.ts';
import { REST_MECHANISMS, splitIdempotencyArgument } from './surface-keys.ts';
import {
  holdsSecret,
  refusal,
  type Authenticator,
  type InvokeRequest,
  type InvokeResult,
  type OrchestratorDeps,
  type PageSessionIssuer,
} from './invoke-types.ts';

export type {
  Authenticator,
  InvokeRequest,
  InvokeResult,
  OrchestratorDeps,
  PageSessionIssuer,
} from './invoke-types.ts';

export class Orchestrator {
  readonly tools: readonly AnyTool[];
  private readonly byName: Map<string, AnyTool>;
  private readonly services: Services;
  private readonly log: Logger;
  /** Each call's context and output check (src/orchestrator/call-parts.ts). */
  private readonly parts: CallParts;
  private readonly idempotency: IdempotencyStore;
  private readonly requestHash: (canonical: string) => string;
  readonly authenticate: Authenticator;
  readonly pageSessions: PageSessionIssuer | undefined;

  constructor(deps: OrchestratorDeps) {
    this.tools = deps.tools;
    this.byName = new Map(deps.tools.map((t) => [t.name, t]));
    if (this.byName.size !== deps.tools.length) throw new Error('Two tools share a name.');
    this.services = deps.services;
    this.log = deps.log;
    this.parts = new CallParts(deps.services, deps.log);
    this.authenticate = deps.authenticate;
    this.idempotency = new IdempotencyStore(deps.services.db, deps.replaySealer);
    this.requestHash = deps.requestHash;
    this.pageSessions = deps.pageSessions;
  }

  /**
   * A view of this orchestrator for one surface request whose `credential` was already authenticated as `principal`
   * (`/mcp` checks the bearer before answering 401 or serving): the calls of that request do not look it up again.
   */
  authenticatedAs(credential: string, principal: Principal): Orchestrator {
    const view = Object.create(this) as Orchestrator;
    const authenticate: Authenticator = (c, surface, page) =>
      c === credential && !page ? Promise.resolve(principal) : this.authenticate(c, surface, page);
    Object.defineProperty(view, 'authenticate', { value: authenticate });
    return view;
  }

  /**
   * Throws the 429 refusal of a call of `name` when its tool's admission control (`tool.admission`) would refuse it for
   * load now, taking nothing: a surface that knows the tool before it reads the input (REST, from the path) asks first,
   * so a refusal under overload costs no body read. A call that passes takes its place in `invoke`, once its caller is
   * authenticated and its input valid.
   */
  refuseForLoad(name: string): void {
    this.byName.get(name)?.admission?.check(this.services);
  }

  get(name: string): AnyTool | undefined {
    return this.byName.get(name);
  }

  /**
   * The tools listed to the holder of `credential`: those it may call (the `auth` declarations `invoke` enforces) and
   * uses for its job (`auth.listed`); without a credential, or with one that does not authenticate, the public tools.
   */
  async toolsFor(
    credential: string | undefined,
    surface?: RequestInfo['surface'],
  ): Promise<{ principal: Principal; tools: AnyTool[] }> {
    const principal = await this.authenticate(credential, surface).catch((): Principal => ({ kind: 'anonymous' }));
    return { principal, tools: this.tools.filter((t) => mayList(t, principal)) };
  }

  /** Runs one tool call; never throws: every outcome is a result with a status. */
  async invoke(req: InvokeRequest): Promise<InvokeResult> {
    return this.call(req);
  }

  private async call(req: InvokeRequest): Promise<InvokeResult> {
    const tool = this.byName.get(req.tool);
    if (!tool) return refusal(undefined, new ToolError('not_found', `No tool named ${req.tool}.`));
    // Structure first (depth, lone surrogates, `__proto__`), so nothing below walks a hostile shape.
    const shape = inputShapeProblem(req.input);
    if (shape) return refusal(tool, inputShapeError(shape));
    // AP2 is refused in this one place, before anything else reads the input (src/domain/ap2/refusal.ts).
    if (isAp2Payload(req.input)) return refusal(tool, ap2Refusal());
    /** The call's key: its one owner (CallKey), passed down in the call's context; every outcome is settled with it. */
    let idem: CallKey | undefined;
    let caller: Principal | undefined;
    let arrival: Arrival | undefined;
    let admitted: (() => void) | undefined;
    const mech = req.mechanisms ?? REST_MECHANISMS;
    try {
      // Load shedding comes first, so a refusal costs no lookup, no claim and no transaction; the call takes its place
      // only once its caller is authenticated and its input valid (below): a stranger or a bad call holds none.
      arrival = tool.admission?.arrive(this.services);
      const strict = tool.rateLimit === 'strict';
      let failed = false;
      const presented = this.authenticate(req.credential, req.request.surface, req.pageSession);
      const principal = await presented.catch(async (err: unknown) => {
        // A failed credential is charged to the client address before it is answered, so guessing is limited.
        failed = true;
        await req.request.rate?.charge(undefined, strict);
        if (tool.auth.public) return { kind: 'anonymous' } as const;
        throw err;
      });
      caller = principal;
      // A shared-transaction tool joins its batch while the charge runs; the batch awaits it before writing it.
      let charged: Promise<void> | undefined;
      if (!failed) charged = req.request.rate?.charge(principal.kind === 'anonymous' ? undefined : principal, strict);
      if (charged && tool.transactional === 'shared') charged.catch(() => undefined);
      else await charged;
      authorize(tool, principal, mech.credential);
      const given = mech.keyArgument
        ? splitIdempotencyArgument(tool, req.input, req.idempotencyKey)
        : { input: req.input, key: req.idempotencyKey };
      const input: unknown = parseInput(tool.input, given.input);
      const mode = tool.idempotency ?? 'none';
      const custom = mode === 'none' ? undefined : tool.idempotencyRequest?.(input, given.key);
      const key = mode === 'none' ? undefined : custom ? custom.key : given.key;
      if (mode === 'required' && !key && (custom || !mech.keyOptional)) {
        throw new ToolError('missing_idempotency_key', `This operation requires ${mech.idempotencyKey}.`);
      }
      if (key !== undefined && (key.length < 1 || key.length > 255 || key.includes('\u0000') || !key.isWellFormed())) {
        throw new ToolError(
          'invalid_input',
          `The idempotency key (${mech.idempotencyKey}) must be 1 to 255 characters (no NUL, no lone surrogate).`,
        );
      }
      admitted = arrival?.take();
      if (key) {
        const scope = custom ? `${principalKey(principal)} ${custom.endpoint}` : principalKey(principal);
        const canonical = canonicalJson(custom ? { body: custom.body } : { tool: tool.name, input: given.input ?? {} });
        const hash = this.requestHash(canonical);
        // Rows stored before requests were keyed hold the plain SHA-256; they match it until they expire (24 h). It is
        // computed only when a stored row does not hold this request's hash (a replay of such a row, or a conflict).
        const legacyHash = () => sha256Hex(canonical);
        idem = this.idempotency.forCall({ scope, key, requestHash: hash, legacyHash }, holdsSecret(tool));
        // A shared tool's key is claimed in its shared transaction, with the change and outcome (docs/performance.md).
        if (tool.transactional !== 'shared') await idem.claim(this.services.clock.now());
      }
      const { output, status } =
        tool.transactional === 'shared'
          ? await this.runShared(tool, input, principal, req, idem, charged)
          : await this.run(tool, input, principal, req, idem);
      return { ok: true, tool, status, output, replayed: false, principal };
    } catch (err) {
      // The key held this request's outcome (found by the claim here, or by the shared transaction): it is the answer.
      if (err instanceof Replay && caller) return this.replay(tool, caller, err.response);
      const error = this.toError(err, tool);
      // A refusal is stored under the key like any outcome, unless it is a 5xx or one for load (CallKey.settle).
      await idem?.settle({ status: error.status, body: error.toBody() }).catch(() => undefined);
      return refusal(tool, error);
    } finally {
      arrival?.drop();
      admitted?.();
    }
  }

  /**
   * A `transactional: 'shared'` tool: the domain runs the call in a transaction shared with concurrent calls, claims
   * its key there and stores its outcome there with the change (`idem`, `finish`); the outcome is then settled with the
   * key like any call's, which stores nothing when the shared transaction stored it.
   */
  private async runShared(
    tool: AnyTool,
    input: unknown,
    principal: Principal,
    req: InvokeRequest,
    idem: CallKey | undefined,
    charged: Promise<void> | undefined,
  ): Promise<{ output: Record<string, unknown>; status: number }> {
    const { makeCtx, finish, flush } = this.parts.for(tool, principal, req);
    let finished: { output: Record<string, unknown>; status: number } | undefined;
    const shared = { finish: (raw: unknown) => (finished = finish(raw)), charged };
    const raw: unknown = await tool.handler(
      input,
      makeCtx(() => this.services.db.fork(), { idempotency: idem, shared }),
    );
    const result = finished ?? finish(raw);
    await idem?.settle({ status: result.status, body: result.output });
    await auditAfterCommit(this.services, this.log, {
      tool,
      input,
      principal,
      request: req.request,
      output: result.output,
    });
    flush();
    return result;
  }

  private async run(
    tool: AnyTool,
    input: unknown,
    principal: Principal,
    req: InvokeRequest,
    idem: CallKey | undefined,
  ): Promise<{ output: Record<string, unknown>; status: number }> {
    const { makeCtx, finish, flush } = this.parts.for(tool, principal, req);
    if (tool.transactional === false) {
      const result = finish(
        await tool.handler(
          input,
          makeCtx(() => this.services.db.fork(), { idempotency: idem }),
        ),
      );
      await idem?.settle({ status: result.status, body: result.output });
      await auditAfterCommit(this.services, this.log, {
        tool,
        input,
        principal,
        request: req.request,
        output: result.output,
      });
      flush();
      return result;
    }
    const committed = await this.services.db.transaction(async (em) => {
      const result = finish(
        await tool.handler(
          input,
          makeCtx(() => em, { idempotency: idem }),
        ),
      );
      await idem?.settle({ status: result.status, body: result.output }, em);
      await auditCall(this.services, em, { tool, input, principal, request: req.request, output: result.output }); // same tx
      return result;
    });
    flush(); // the business events of a committed call only
    return committed;
  }

  private replay(tool: AnyTool, principal: Principal, stored: { status: number; body: unknown }): InvokeResult {
    if (stored.status >= 400) {
      return { ok: false, tool, status: stored.status, error: stored.body as ErrorBody, replayed: true };
    }
    return {
      ok: true,
      tool,
      status: stored.status,
      output: stored.body as Record<string, unknown>,
      replayed: true,
      principal,
    };
  }

  private toError(err: unknown, tool: AnyTool): ToolError {
    if (err instanceof ToolError) return err;
    const mapped = this.services.db.mapDatabaseError(err);
    // No pooled connection came free in time: answered 503, but logged, since it is also how a transaction that takes a
    // second pooled connection (the deadlock class of docs/performance.md) shows itself.
    if (mapped && isPoolExhausted(err)) this.log.warn({ tool: tool.name }, 'no database connection came free in time');
    if (mapped) return mapped;
    this.log.error({ tool: tool.name, err: describeError(err) }, 'unexpected error in tool');
    return new ToolError('internal_error');
  }
}
