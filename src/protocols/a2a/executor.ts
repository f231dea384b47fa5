/**
 * The A2A executor: a message's `{ skill, input }` data part becomes one orchestrator call, its outcome a task state.
 */
import { Role, TaskState, type Artifact, type Part, type Task, type TaskStatus } from '@a2a-js/sdk';
import {
  AgentEvent,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
  type ServerCallContext,
} from '@a2a-js/sdk/server';
import { ap2Refusal, isAp2Request } from '../../domain/ap2/refusal.ts';
import type { Clock } from '../../kernel/clock.ts';
import type { RequestInfo } from '../../domain/context.ts';
import { ToolError, type ErrorBody } from '../../kernel/errors.ts';
import type { Orchestrator } from '../../orchestrator/invoke.ts';
import type { AnyTool } from '../../orchestrator/tool.ts';
import { IDEMPOTENCY_ARGUMENT, type SurfaceMechanisms } from '../../orchestrator/surface-keys.ts';
import {
  agentMessage,
  dataPart,
  isTextOnly,
  PENDING_RESERVATION,
  pendingReservation,
  readCall,
  stateForError,
  textPart,
  type SkillCall,
} from './skill-call.ts';
import { readUcpCall, STATE_UCP_AGENT, UCP_CHECKOUT_KEY, type UcpCall } from './ucp-binding.ts';

/** ServerCallContext state keys the router fills: the bearer credential and the transport request info. */
export const STATE_CREDENTIAL = 'tessera.credential';
export const STATE_REQUEST = 'tessera.request';
/** ServerCallContext state key: the orchestrator as the caller the router authenticated (no second lookup per call). */
export const STATE_ORCHESTRATOR = 'tessera.orchestrator';
/**
 * ServerCallContext state key: the caller's rate-limit charge, in flight while the SDK starts a new task (router.ts).
 */
export const STATE_CHARGED = 'tessera.charged';

/** Told which task a request makes, so the store can keep it in memory until the answer (task-store.ts). */
export interface FreshTasks {
  fresh(context: ServerCallContext, taskId: string): void;
}

/** On A2A the key travels beside the skill or inside its input; the spine's natural idempotency makes it optional. */
const MECHANISMS: SurfaceMechanisms = {
  idempotencyKey: `an idempotencyKey in the data part (beside skill and input, or as input.${IDEMPOTENCY_ARGUMENT})`,
  credential: 'an Authorization: Bearer header',
  keyOptional: true,
  keyArgument: true,
};

/**
 * Whether a skill's success answers a new message with a message rather than a task: the tools that only read (their
 * MCP `readOnlyHint`), whose call leaves nothing behind to track. Refusals, every other skill, a follow-up on a task
 * and a call that asked for its task at once (`returnImmediately`) answer with a task.
 */
export const answersWithMessage = (tool: AnyTool): boolean => tool.annotations.readOnlyHint === true;

/**
 * Runs tools for A2A messages. A read-only skill's success on a new message is answered with a message; every other
 * call publishes a task and ends it in exactly one state.
 */
export class ToolExecutor implements AgentExecutor {
  private readonly orchestrator: Orchestrator;
  private readonly clock: Clock;
  private readonly tasks: FreshTasks | undefined;

  constructor(orchestrator: Orchestrator, clock: Clock, tasks?: FreshTasks) {
    this.orchestrator = orchestrator;
    this.clock = clock;
    this.tasks = tasks;
  }

  async execute(rc: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { taskId, contextId } = rc;
    if (!rc.task) this.tasks?.fresh(rc.context, taskId); // first, before any event of the task is stored
    const status = (state: TaskState, parts?: Part[]): TaskStatus => ({
      state,
      timestamp: this.clock.now().toISOString(),
      message: parts && {
        messageId: crypto.randomUUID(),
        taskId,
        contextId,
        role: Role.ROLE_AGENT,
        parts,
        metadata: undefined,
        extensions: [],
        referenceTaskIds: [],
      },
    });
    const base: Task = rc.task
      ? { ...rc.task }
      : { id: taskId, contextId, status: undefined, artifacts: [], history: [rc.userMessage], metadata: undefined };
    // A call publishes its task once, in its final state: the SDK then applies one event, not three (each a load,
    // copies and a save). Only a call answered early (`returnImmediately`) that reaches its tool publishes the working
    // task first, which is its answer, then the artifact and the final status.
    let working = false;
    const end = (state: TaskState, parts?: Part[], artifact?: Artifact) => {
      const final = status(state, parts);
      if (working) {
        if (artifact)
          bus.publish(
            AgentEvent.artifactUpdate({
              taskId,
              contextId,
              append: false,
              lastChunk: true,
              metadata: undefined,
              artifact,
            }),
          );
        bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: final, metadata: undefined }));
        return;
      }
      // As the SDK applies those two events: the artifact joins the task's, the status message its history.
      bus.publish(
        AgentEvent.task({
          ...base,
          status: final,
          artifacts: artifact ? [...base.artifacts, artifact] : base.artifacts,
          history: final.message ? [...base.history, final.message] : base.history,
        }),
      );
    };
    const refuse = (httpStatus: number, error: ErrorBody, tool?: AnyTool) =>
      end(stateForError(httpStatus, error, tool), [textPart(`${error.code}: ${error.message}`), dataPart(error)]);

    // AP2 is refused before anything is parsed or run: an AP2 extension URI, or an AP2 mandate in a data part.
    const data = rc.userMessage.parts.flatMap((p) => (p.content?.$case === 'data' ? [p.content.value as unknown] : []));
    if (isAp2Request([...rc.userMessage.extensions, ...(rc.context.requestedExtensions ?? [])], data)) {
      const e = ap2Refusal();
      return refuse(e.status, e.toBody());
    }
    let ucp: UcpCall | undefined;
    // Free text gets a message (no task) saying how to call a skill.
    if (isTextOnly(rc.userMessage)) return this.explain(rc, bus);
    let call: SkillCall;
    try {
      // UCP's A2A binding: its data parts are a call of the UCP checkout tool of the same name (ucp-binding.ts).
      ucp = readUcpCall(
        rc.userMessage,
        rc.context.requestedExtensions ?? [],
        rc.context.state.get(STATE_UCP_AGENT) as string,
      );
      call = ucp ? { skill: ucp.tool, input: ucp.input, idempotencyKey: ucp.idempotencyKey } : readCall(rc.userMessage);
      if (!this.orchestrator.get(call.skill)) {
        throw new ToolError('invalid_input', `No skill ${call.skill}; the agent card lists the skills.`, {
          field: 'skill',
        });
      }
    } catch (err) {
      const e = err instanceof ToolError ? err : new ToolError('invalid_input');
      return refuse(e.status, e.toBody());
    }
    const state = rc.context.state;
    // A caller over its budget never reaches the tool: the router answers it 429 and stores nothing.
    const refused = await (state.get(STATE_CHARGED) as Promise<void> | undefined)?.then(
      () => undefined,
      (err: unknown) => err ?? 'refused',
    );
    if (refused !== undefined) {
      const e = refused instanceof ToolError ? refused : new ToolError('rate_limited');
      return refuse(e.status, e.toBody());
    }
    if (rc.request.configuration?.returnImmediately === true) {
      bus.publish(AgentEvent.task({ ...base, status: status(TaskState.TASK_STATE_WORKING) }));
      working = true;
    }
    const orchestrator = (state.get(STATE_ORCHESTRATOR) as Orchestrator | undefined) ?? this.orchestrator;
    const result = await orchestrator.invoke({
      tool: call.skill,
      input: call.input,
      credential: state.get(STATE_CREDENTIAL) as string | undefined,
      idempotencyKey: call.idempotencyKey,
      request: (state.get(STATE_REQUEST) as RequestInfo | undefined) ?? { surface: 'a2a' },
      mechanisms: MECHANISMS,
    });
    if (!result.ok) return refuse(result.status, result.error, result.tool);
    // The binding answers a UCP call with a message carrying the checkout (a pending payment is complete_in_progress).
    if (ucp) return bus.publish(agentMessage(contextId, [dataPart({ [UCP_CHECKOUT_KEY]: result.output })]));
    // A skill that only reads answers a new message with a message (A2A's reply to a stateless call): nothing changed,
    // so there is no task to keep or read back, and no task row is written. A follow-up on a task ends that task, and
    // a call answered early already has its working task, which it ends.
    if (!rc.task && !working && answersWithMessage(result.tool)) {
      bus.publish(agentMessage(contextId, [dataPart(result.output)], { skill: call.skill }));
      return;
    }
    // A purchase still pending at the provider (202) is WORKING, not completed: the task completes when the provider
    // answers, as GetTask then finds (`refresh`).
    const pending = result.status === 202 ? pendingReservation(result.output) : undefined;
    const metadata = { ...(result.replayed && { replayed: true }), ...(pending && { [PENDING_RESERVATION]: pending }) };
    end(pending ? TaskState.TASK_STATE_WORKING : TaskState.TASK_STATE_COMPLETED, undefined, {
      artifactId: crypto.randomUUID(),
      name: call.skill,
      description: result.tool.title,
      parts: [dataPart(result.output)],
      metadata: Object.keys(metadata).length ? metadata : undefined,
      extensions: [],
    });
  }

  /**
   * A WORKING task whose purchase was pending at the provider, read again (GetTask, a follow-up): its reservation is
   * read as the caller (`get_reservation`); once the provider has answered, the task ends COMPLETED with the purchase
   * as its new artifact (FAILED when the payment did not succeed, the artifact saying why). Undefined: unchanged.
   */
  async refresh(task: Task, context: ServerCallContext): Promise<Task | undefined> {
    if (task.status?.state !== TaskState.TASK_STATE_WORKING) return undefined;
    const last = task.artifacts.at(-1);
    const id: unknown = last?.metadata?.[PENDING_RESERVATION];
    if (!last || typeof id !== 'string') return undefined;
    const orchestrator = (context.state.get(STATE_ORCHESTRATOR) as Orchestrator | undefined) ?? this.orchestrator;
    const read = await orchestrator.invoke({
      tool: 'get_reservation',
      input: { id },
      credential: context.state.get(STATE_CREDENTIAL) as string | undefined,
      request: (context.state.get(STATE_REQUEST) as RequestInfo | undefined) ?? { surface: 'a2a' },
      mechanisms: MECHANISMS,
    });
    if (!read.ok || pendingReservation(read.output) !== undefined) return undefined;
    const payment = (read.output as { payment?: { state?: unknown } }).payment;
    const state = payment?.state === 'succeeded' ? TaskState.TASK_STATE_COMPLETED : TaskState.TASK_STATE_FAILED;
    const artifact: Artifact = {
      artifactId: crypto.randomUUID(),
      name: last.name,
      description: last.description,
      parts: [dataPart(read.output)],
      metadata: undefined,
      extensions: [],
    };
    const status: TaskStatus = { state, timestamp: this.clock.now().toISOString(), message: undefined };
    return { ...task, status, artifacts: [...task.artifacts, artifact] };
  }

  /**
   * The reply to a text-only message: free text is not understood, so the answer is a message (no task) that says how
   * to call a skill, names the skills the caller may call and gives a ready-to-send example.
   */
  private async explain(rc: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { tools } = await this.orchestrator.toolsFor(rc.context.state.get(STATE_CREDENTIAL) as string | undefined);
    const skills = tools.map((t) => t.name);
    const example = skills.includes('quote')
      ? { skill: 'quote', input: { tierId: 'tier_…', quantity: 2 } }
      : { skill: skills[0] ?? 'get_acp_discovery', input: {} };
    const text =
      'I run one Tessera skill per message and do not read free text. Send a message with a data part ' +
      '{"skill": "<skill id>", "input": {...}} (add "idempotencyKey": "<unique string>" to make a retry safe); the result ' +
      "of a skill that only reads (tag read-only) comes back as a message's data part, any other result as the " +
      `completed task's data artifact, and a refusal as a task state. Skills you may call: ${skills.join(', ')}. ` +
      'To buy tickets: list_events or get_event (find a tier) → quote → reserve → confirm. ' +
      `Example data part: ${JSON.stringify(example)}. The agent card describes every skill and its input schema` +
      (rc.context.state.get(STATE_CREDENTIAL)
        ? '.'
        : '; send an Authorization: Bearer credential to see and call more.');
    bus.publish(agentMessage(rc.contextId, [textPart(text), dataPart({ skills, example })]));
  }

  /** Calls finish before anyone could cancel them; this only answers a cancel that races a running call. */
  async cancelTask(taskId: string, bus: ExecutionEventBus): Promise<void> {
    bus.publish(
      AgentEvent.statusUpdate({
        taskId,
        contextId: '',
        metadata: undefined,
        status: { state: TaskState.TASK_STATE_CANCELED, timestamp: this.clock.now().toISOString(), message: undefined },
      }),
    );
  }
}
