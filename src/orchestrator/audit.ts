/**
 * The orchestrator's step that records a successful call in the audit log when the rule says so
 * (`src/domain/merchants/audit-log.ts`: a write by a console user or an API key).
 */
import type { Logger } from 'pino';
import type { RequestInfo, Services, ToolContext } from '../domain/context.ts';
import { auditRecordFor } from '../domain/merchants/audit-log.ts';
import { describeError } from '../kernel/errors.ts';
import type { Principal } from '../kernel/principal.ts';
import { recordAudit } from '../storage/audit-log.ts';
import type { AnyTool } from './tool.ts';

/** A successful call, as the audit step sees it. */
export interface SucceededCall {
  tool: AnyTool;
  input: unknown;
  principal: Principal;
  request: RequestInfo;
  output: Record<string, unknown>;
}

/** Records `call` through `em`: inside the write's own transaction when the tool has one (a failure rolls both back). */
export async function auditCall(services: Services, em: ToolContext['em'], call: SucceededCall): Promise<void> {
  const record = auditRecordFor({
    tool: call.tool.name,
    readOnly: call.tool.annotations.readOnlyHint === true,
    unaudited: call.tool.audited === false,
    principal: call.principal,
    input: call.input,
    output: call.output,
    surface: call.request.surface,
    requestId: call.request.requestId ?? null,
    at: services.clock.now(),
  });
  if (record) await recordAudit(em, record);
}

/** For a tool that commits on its own: recorded right after; a failure to record is logged, and the answer stands. */
export async function auditAfterCommit(services: Services, log: Logger, call: SucceededCall): Promise<void> {
  try {
    await auditCall(services, services.db.fork(), call);
  } catch (err) {
    log.error({ tool: call.tool.name, err: describeError(err) }, 'could not record the call in the audit log');
  }
}
