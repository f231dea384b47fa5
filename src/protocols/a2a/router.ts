/** Koa routes for A2A v1.0 and v0.3: the agent card and the JSON-RPC binding, over the SDK's handlers. */
import Router from '@koa/router';
import { A2A_VERSION_HEADER, AGENT_CARD_PATH, AgentCard } from '@a2a-js/sdk';
import { ContentTypeNotSupportedError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import {
  DefaultExecutionEventBusManager,
  DefaultRequestHandler,
  JsonRpcTransportHandler,
  ServerCallContext,
  validateVersion,
  type User,
} from '@a2a-js/sdk/server';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import type { Logger } from 'pino';
import { describeError } from '../../kernel/errors.ts';
import { principalKey, type PrincipalKind } from '../../kernel/principal.ts';
import { PRINCIPAL_KIND_STATE } from '../../http/request-log.ts';
import { A2aTasks } from '../../storage/a2a-tasks.ts';
import type { Orchestrator } from '../../orchestrator/invoke.ts';
import type { Services } from '../../domain/context.ts';
import { answerCacheable } from '../../http/conditional.ts';
import { bearerOf, requestInfo } from '../../http/http.ts';
import type { RateGate } from '../../domain/context.ts';
import { readRaw } from '../../http/read-body.ts';
import { A2A_JSONRPC_PATH, buildAgentCard, publicCardTools } from './agent-card.ts';
import {
  envelopeRefusal,
  idOf,
  isLegacy,
  methodNotFound,
  parsed,
  startsNewTask,
  unsupportedPart,
} from './jsonrpc-envelope.ts';
import { STATE_CHARGED, STATE_CREDENTIAL, STATE_ORCHESTRATOR, STATE_REQUEST, ToolExecutor } from './executor.ts';
import { PostgresTaskStore } from './task-store.ts';
import { requestedExtensionsOf, STATE_UCP_AGENT } from './ucp-binding.ts';
import { UCP_CHECKOUT_TOOLS } from '../ucp/profile.ts';

export interface A2aDeps {
  orchestrator: Orchestrator;
  services: Pick<Services, 'clock' | 'publicUrl' | 'db'>;
  /** Where an unexpected error's cause goes (the caller gets a generic -32603). */
  log?: Logger;
}

/**
 * The SDK's `User` only scopes tasks (GetTask/ListTasks see the owner's own); authorization happens in the
 * orchestrator. The owner is the caller's principal (`principalKey`), so any credential of that principal reads its
 * tasks and no one else does. A caller without a valid credential gets an owner of its own for this one request: its
 * task is answered and never stored, and no other caller (anonymous or not) can ever name that owner. `charged` is the
 * rate-limit charge (the principal's, or the address's for a failed credential), started here and not awaited (the
 * route says who awaits it when).
 */
async function callerOf(
  orchestrator: Orchestrator,
  credential: string | undefined,
  rate: RateGate | undefined,
): Promise<{ user: User; orchestrator: Orchestrator; charged: Promise<void>; kind: PrincipalKind }> {
  const principal = credential ? await orchestrator.authenticate(credential, 'a2a').catch(() => undefined) : undefined;
  if (!credential || !principal || principal.kind === 'anonymous') {
    // A credential that failed is charged to the address (one without a credential was charged already), so a junk
    // bearer reads no task list or extended card past the address's budget.
    const charged = credential && rate ? rate.charge(undefined, false) : Promise.resolve();
    charged.catch(() => undefined);
    const user = { isAuthenticated: false, userName: `once:${crypto.randomUUID()}` };
    return { user, orchestrator, charged, kind: 'anonymous' };
  }
  const charged = rate ? rate.charge(principal, false) : Promise.resolve(); // the principal's budget, not the address's
  charged.catch(() => undefined); // awaited by the route; never an unhandled rejection meanwhile
  // The request's tool call does not look the credential up again (revocation is checked once per request, as on /mcp).
  return {
    user: { isAuthenticated: true, userName: principalKey(principal) },
    orchestrator: orchestrator.authenticatedAs(credential, principal),
    charged,
    kind: principal.kind,
  };
}

/**
 * Event buses keyed by task id alone: the SDK's manager keeps a map per tenant and owner that it never deletes, which
 * would leave one behind for every one-request owner or made-up tenant. Task ids are server-made UUIDs, and a follow-up
 * message is checked against the owner's stored task before any bus is looked up.
 */
class TaskIdBuses extends DefaultExecutionEventBusManager {
  override createOrGetByTaskId(taskId: string) {
    return super.createOrGetByTaskId(taskId);
  }
  override getByTaskId(taskId: string) {
    return super.getByTaskId(taskId);
  }
  override cleanupByTaskId(taskId: string) {
    super.cleanupByTaskId(taskId);
  }
}

/** How long a client may keep the public agent card without asking again. */
const CARD_MAX_AGE_SECONDS = 300;

export function buildA2aRouter({ orchestrator, services, log }: A2aDeps): Router {
  const router = new Router();
  const tasks = new A2aTasks(services.db);
  const store = new PostgresTaskStore(tasks, services.clock, (name) => orchestrator.get(name));
  const executor = new ToolExecutor(orchestrator, services.clock, store);
  store.refresh = (task, context) => executor.refresh(task, context);
  // The port (hence the card's URLs) is known only after listen: rebuild when the public URL changes.
  type Served = { url: string; card: AgentCard; json: unknown; rpc: JsonRpcTransportHandler };
  let current: (Served & { legacy: LegacyJsonRpcTransportHandler }) | undefined;
  const ucp = UCP_CHECKOUT_TOOLS.every((name) => orchestrator.get(name)); // the card advertises UCP's A2A binding
  const forUrl = () => {
    const url = services.publicUrl();
    if (current?.url !== url) {
      const card = buildAgentCard(publicCardTools(orchestrator.tools), url, { ucp });
      // The authenticated extended card lists the caller's own skills (one card per distinct set of tools). The SDK
      // client asks for it whenever the public card announces it: without a credential it lists the public skills.
      const extended = new Map<string, AgentCard>();
      const extendedCard = async (context: ServerCallContext): Promise<AgentCard> => {
        const { tools } = await orchestrator.toolsFor(context.state.get(STATE_CREDENTIAL) as string | undefined);
        const key = tools.map((t) => t.name).join(' ');
        let found = extended.get(key);
        if (!found) extended.set(key, (found = buildAgentCard(tools, url, { schemas: true, ucp })));
        return found;
      };
      // No interrupted state keeps its event bus: every call finishes synchronously, a follow-up
      // message gets a fresh bus, and streaming is off, so a kept bus would only leak.
      const handler = new DefaultRequestHandler(
        card,
        store,
        executor,
        new TaskIdBuses(),
        undefined,
        undefined,
        extendedCard,
        undefined,
        {
          keepBusAliveStates: [],
        },
      );
      current = {
        url,
        card,
        json: AgentCard.toJSON(card),
        rpc: new JsonRpcTransportHandler(handler),
        legacy: new LegacyJsonRpcTransportHandler(handler),
      };
    }
    return current;
  };

  /**
   * The public card changes only with a release or the public URL: cacheable for 5 minutes, with a strong ETag, and
   * 304 on a matching If-None-Match (A2A recommends HTTP caching of the card).
   */
  router.get(`/${AGENT_CARD_PATH}`, (ctx) => {
    const { json } = forUrl();
    if (answerCacheable(ctx, { maxAgeSeconds: CARD_MAX_AGE_SECONDS }, true, json)) return;
    ctx.body = json;
  });

  router.post(A2A_JSONRPC_PATH, async (ctx) => {
    const { card, rpc, legacy } = forUrl();
    const raw = (await readRaw(ctx.req)).toString('utf8');
    const credential = bearerOf(ctx);
    const info = requestInfo(ctx, 'a2a');
    const { user, orchestrator: caller, charged, kind } = await callerOf(orchestrator, credential, info.rate);
    ctx.state[PRINCIPAL_KIND_STATE] = kind; // for the request log
    const context = new ServerCallContext({
      user,
      requestedVersion: ctx.get(A2A_VERSION_HEADER) || undefined,
      requestedExtensions: requestedExtensionsOf(ctx.get('x-a2a-extensions') || ctx.get('a2a-extensions')),
      state: new Map<string, unknown>([
        [STATE_UCP_AGENT, ctx.get('ucp-agent') || undefined],
        [STATE_CREDENTIAL, credential],
        [STATE_REQUEST, info],
        [STATE_ORCHESTRATOR, caller],
        [STATE_CHARGED, charged],
      ]),
    });
    // A task this request makes is written once, when it settles (before the answer); an anonymous caller's never.
    store.begin(context, user.isAuthenticated);
    const v03 = isLegacy(context.requestedVersion);
    const fail = (err: unknown) => {
      const error = v03
        ? LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError(err)
        : JsonRpcTransportHandler.mapToJSONRPCError(err);
      if (error.code !== -32603) return { jsonrpc: '2.0', id: idOf(raw), error };
      // The SDK puts an unexpected error's own message in -32603: the cause is logged, never sent.
      log?.error({ err: describeError(err) }, 'unexpected error in an A2A request');
      return { jsonrpc: '2.0', id: idOf(raw), error: { code: -32603, message: 'Internal error.' } };
    };
    const body = parsed(raw);
    // Over its budget, the caller gets HTTP 429 (the REST error body, Retry-After) and nothing is run or stored: the
    // charge is awaited here, except for a message starting a new task, whose skill waits for it in the executor and
    // whose task is then never settled.
    if (!startsNewTask(body)) await charged;
    // JSON-RPC 2.0: not JSON, not a request object, or nested too deep for the SDK (jsonrpc-envelope.ts).
    const refused = envelopeRefusal(raw, body);
    if (refused) {
      ctx.body = refused;
      return;
    }
    let handled: { out: Awaited<ReturnType<JsonRpcTransportHandler['handle']>> } | { err: unknown };
    try {
      validateVersion(context.requestedVersion, card, 'JSONRPC');
      const notFound = methodNotFound(raw, body, v03); // its charge was awaited above (it starts no task)
      if (notFound) {
        ctx.body = notFound;
        return;
      }
      const unsupported = unsupportedPart(body);
      if (unsupported) throw new ContentTypeNotSupportedError(`Content type not supported: ${unsupported}.`);
      const request = body as Record<string, unknown>;
      handled = { out: v03 ? await legacy.handle(request, context) : await rpc.handle(request, context) };
    } catch (err) {
      handled = { err };
    }
    await charged;
    if ('err' in handled) {
      ctx.body = fail(handled.err);
      return;
    }
    const { out } = handled;
    try {
      await store.settle(context); // stored before its id is sent: another process reads it at once
      if (!(Symbol.asyncIterator in out)) {
        ctx.body = out;
        return;
      }
      // Streaming methods: the card says streaming is off, so the SDK raises UnsupportedOperation on the first pull.
      const it = out[Symbol.asyncIterator]();
      await it.next();
      await it.return(undefined);
      throw new UnsupportedOperationError('Streaming is not supported.');
    } catch (err) {
      ctx.body = fail(err);
    }
  });
  return router;
}
