/**
 * The command line of `npm run bench` (bench/reserve.ts), parsed once: which parts run, their sizes and repetitions,
 * and the flags of the server processes the bench starts.
 */
import { parseArgs } from 'node:util';
import { SERVER_NODE_ARGS } from '../test/support/server-process.ts';

/** The command line (`npm run bench -- --levels …`; the list is in bench/reserve.ts). */
export const { values } = parseArgs({
  options: {
    levels: { type: 'string' },
    requests: { type: 'string' },
    'per-client': { type: 'string' },
    reps: { type: 'string' },
    seconds: { type: 'string' },
    quick: { type: 'boolean' },
    'surface-calls': { type: 'string' },
    parts: { type: 'string' },
    'cpu-prof': { type: 'string' },
    'retry-ms': { type: 'string' },
    'flood-threads': { type: 'string' },
    bound: { type: 'string' },
    'server-node-flags': { type: 'string' },
    keys: { type: 'string' },
    holds: { type: 'string' },
    outbox: { type: 'string' },
    routing: { type: 'string' },
    'purchase-servers': { type: 'string' },
    'pin-servers': { type: 'string' },
  },
});
/** RESERVE_ROUTING of every server process the bench starts (`--routing owner`; docs/scaling.md); unset: the default. */
export const ROUTING_ENV: Record<string, string> = values.routing ? { RESERVE_ROUTING: values.routing } : {};
/**
 * Part 2's server processes (`--purchase-servers 2`; default 1): its 64 clients' purchases are dealt out over them, each
 * purchase's three calls to one process.
 */
export const PURCHASE_SERVERS = Number(values['purchase-servers'] ?? 1);
if (!Number.isInteger(PURCHASE_SERVERS) || PURCHASE_SERVERS < 1 || PURCHASE_SERVERS > 4)
  throw new Error('--purchase-servers: a whole number from 1 to 4');
/**
 * Part 4's CPU set for every server process (`--pin-servers 0`, a `taskset` CPU list; unset: no pinning). Pinned, one
 * process and N processes have the same CPU to share, while PostgreSQL and the clients run where they will, so the
 * rows compare N processes with one on the same CPU.
 */
export const PIN_SERVERS = values['pin-servers'];
if (PIN_SERVERS !== undefined && !/^\d+([-,]\d+)*$/.test(PIN_SERVERS))
  throw new Error('--pin-servers: a CPU list, as taskset takes it (0, or 0-1, or 0,2)');
/**
 * Which parts run (default all): 1 hot pool, 2 purchases, 3 overload, 4 processes, 5 surfaces, 6 growth
 * (bench/growth.ts).
 */
export const PARTS = new Set((values.parts ?? '1,2,3,4,5,6').split(',').map(Number));
/**
 * A directory for V8 CPU profiles of the server processes (the first, and the overload run's; written when they stop),
 * e.g. /tmp/prof.
 */
export const CPU_PROF = values['cpu-prof'];
/** In the overload run, how long a refused client waits before retrying; unset: the Retry-After it was given. */
export const RETRY_MS = values['retry-ms'] === undefined ? undefined : Number(values['retry-ms']);
/** The overload run's client threads (bench/flood.ts): its clients are dealt out over this many event loops. */
export const FLOOD_THREADS = Number(values['flood-threads'] ?? 1);
if (!Number.isInteger(FLOOD_THREADS) || FLOOD_THREADS < 1)
  throw new Error('--flood-threads: a whole number, 1 or more');
/**
 * The overload run's admission bound (RESERVE_MAX_WAIT_MS of its server): `--bound`, else the p50 of a reserve at the
 * last level (64 clients) measured by part 1 in the same run, the latency admitted calls are to keep under the flood;
 * 50 ms when part 1 did not run.
 */
export const BOUND_MS = values.bound === undefined ? undefined : Number(values.bound);
/** The admission bound when neither `--bound` nor part 1 gives one. */
export const DEFAULT_BOUND_MS = 50;
/**
 * Node.js flags for every server process the bench starts, after the server's own (`--server-node-flags=--flag`, with
 * `=`; several quoted and space-separated): V8's collector settings, which NODE_OPTIONS does not accept, measured on
 * the same bench.
 */
export const SERVER_NODE_FLAGS = (values['server-node-flags'] ?? '').split(/\s+/).filter(Boolean);
if (SERVER_NODE_FLAGS.some((f) => !f.startsWith('--')))
  throw new Error('--server-node-flags: Node.js flags only, each starting with --');
/**
 * The server's own flags, then the bench's (the last of a flag wins: `--min-semi-space-size=0` measures without it).
 */
export const SERVER_ARGS = [...SERVER_NODE_ARGS, ...SERVER_NODE_FLAGS];
/** The concurrency levels of parts 1 (and the last one's tenfold in part 3). */
export const LEVELS = (values.levels ?? '1,8,32,64').split(',').map(Number);
/** Requests of one throughput run, at the least. */
export const REQUESTS = Number(values.requests ?? 400);
/**
 * Requests per client at least, in a throughput run: a run of 400 requests at 32 clients is 12 per client, so its
 * ramp-up and tail (fewer clients in flight, smaller batches) and one collector pause weigh on the figure as much as
 * the steady state it is meant to measure.
 */
export const PER_CLIENT = Number(values['per-client'] ?? 40);
/** The requests of one throughput run at `clients` concurrent clients. */
export const requestsAt = (clients: number) => Math.max(REQUESTS, clients * PER_CLIENT);
/** Repetitions of every measurement; figures are their medians. */
export const REPS = Number(values.reps ?? 3);
/** How long each overload run lasts (part 3). */
export const SECONDS = Number(values.seconds ?? 8);
/** Calls per surface per repetition in part 5. */
export const SURFACE_CALLS = Number(values['surface-calls'] ?? 300);
