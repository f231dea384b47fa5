/**
 * What running one tool call needs beside its handler (src/orchestrator/invoke.ts): the call's context, `finish`,
 * the output checked against the tool's schema, with its status, and `flush`, its business events once committed.
 */
import type { Logger } from 'pino';
import type { ZodType } from 'zod';
import type { RequestInfo, Services, SharedCall, ToolContext } from '../domain/context.ts';
import type { CallKey } from '../storage/idempotency-store.ts';
import { ToolError } from '../kernel/errors.ts';
import type { Principal } from '../kernel/principal.ts';
import type { BusinessEvent } from '../kernel/business-events.ts';
import { successStatus, type AnyTool } from './tool.ts';

export class CallParts {
  private readonly services: Services;
  private readonly log: Logger;
  /**
   * Each tool's logger per surface, made once: a pino child serialises (and redacts) its bindings when it is made,
   * which cost about 13 µs a call when every call made its own. At most one per tool and surface.
   */
  private readonly logs = new Map<string, Logger>();

  constructor(services: Services, log: Logger) {
    this.services = services;
    this.log = log;
  }

  /** The parts of one call of `tool` by `principal`. */
  for(tool: AnyTool, principal: Principal, req: { request: RequestInfo; idempotencyKey?: string | undefined }) {
    const logKey = `${tool.name} ${req.request.surface}`;
    let log = this.logs.get(logKey);
    if (!log) this.logs.set(logKey, (log = this.log.child({ tool: tool.name, surface: req.request.surface })));
    const services = this.services;
    // The call's business events, written by `flush` once the call has committed (never for a failed call).
    const pending: BusinessEvent[] = [];
    const flush = () => {
      for (const event of pending.splice(0)) services.events.record(event);
    };
    /**
     * The call's context; its EntityManager is made when first asked for (`emOf`): a shared call's work runs on the
     * shared transaction's (a reserve's batch), so most never ask, and forking one per call cost about 15 µs.
     */
    const makeCtx = (
      emOf: () => ToolContext['em'],
      call: { idempotency?: CallKey | undefined; shared?: SharedCall } = {},
    ): ToolContext => {
      let em: ToolContext['em'] | undefined;
      pending.length = 0; // a retried transaction makes a new context: only the attempt that committed counts
      const ctx: ToolContext = {
        principal,
        get em() {
          return (em ??= emOf());
        },
        services,
        clock: services.clock,
        log,
        request: req.request,
        idempotencyKey: req.idempotencyKey,
        events: { record: (event) => void pending.push(event) },
      };
      if (call.idempotency) ctx.idempotency = call.idempotency;
      if (call.shared) ctx.shared = call.shared;
      return ctx;
    };
    const finish = (raw: unknown) => {
      const parsed = (tool.output as ZodType).safeParse(raw);
      if (!parsed.success) {
        log.error({ issues: parsed.error.issues.slice(0, 5) }, 'tool output failed its schema');
        throw new ToolError('internal_error');
      }
      const output = parsed.data as Record<string, unknown>;
      return { output, status: successStatus(tool, output) };
    };
    return { makeCtx, finish, flush };
  }
}
