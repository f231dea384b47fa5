/**
 * The overload run's clients (part 3 of bench/reserve.ts), in worker threads (`--flood-threads`, one by default).
 * The flood loop does not share a thread with the rest of the bench. Each call's latency is taken two ways:
 * - from when its client started it, as before;
 * - "from send": from when its request was written to the socket. This includes the server's accept queue and leaves
 *   out the client's own queue before the send. 640 clients in one event loop delay their own requests: the loop opens
 *   640 connections in one turn and reads every refusal. In the first second of a run, a request was written 27–92 ms
 *   (p99) after its client started it (2026-11-27).
 * Several threads send the flood faster, but on the two-core bench machine they also take the CPU the server needs, and
 * the admitted p99 was worse with four than with one (docs/performance.md), so one thread stays the default.
 */
import { randomUUID } from 'node:crypto';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { benchClient } from './http-client.ts';

export interface FloodJob {
  url: string;
  token: string;
  clients: number;
  quoteIds: string[];
  jitter: boolean;
  /** A fixed wait after a refusal (ms); unset: the refusal's Retry-After. */
  retryMs: number | undefined;
}

/**
 * One admitted or refused call: when it was started (ms after startAt), and its latency from its start and from its
 * send.
 */
export interface FloodCall {
  at: number;
  ms: number;
  fromSent: number;
}

export interface FloodResult {
  admitted: FloodCall[];
  refused: FloodCall[];
}

const epochNow = () => performance.timeOrigin + performance.now();

/**
 * When a thread's clients begin and end (ms since the epoch: `performance.timeOrigin + performance.now()`, shared by
 * the threads).
 */
interface Window {
  startAt: number;
  stopAt: number;
}

async function flood(job: FloodJob, { startAt, stopAt }: Window): Promise<FloodResult> {
  const client = benchClient(job.url, job.token);
  const admitted: FloodCall[] = [];
  const refused: FloodCall[] = [];
  let next = 0;
  await new Promise((res) => setTimeout(res, Math.max(0, startAt - epochNow())));
  try {
    await Promise.all(
      Array.from({ length: job.clients }, async () => {
        while (epochNow() < stopAt && next < job.quoteIds.length) {
          const quoteId = job.quoteIds[next++]!;
          const key = randomUUID();
          for (;;) {
            const t0 = epochNow();
            const r = await client.post('/v1/ticketing/reservations', { quoteId }, { 'idempotency-key': key });
            const end = epochNow();
            const call = {
              at: t0 - startAt,
              ms: end - t0,
              fromSent: end - (r.sentAt === undefined ? t0 : performance.timeOrigin + r.sentAt),
            };
            if (r.status === 429) {
              refused.push(call);
              const wait =
                (job.retryMs ?? Number(r.headers.get('retry-after') ?? 1) * 1000) *
                (job.jitter ? 1 + Math.random() : 1);
              // Only calls sent within the run count: a client told to come back after it ends stops here.
              if (epochNow() + wait >= stopAt) return;
              await new Promise((res) => setTimeout(res, wait));
              continue;
            }
            if (r.status !== 201) throw new Error(`overload: unexpected ${r.status} ${JSON.stringify(r.body)}`);
            admitted.push(call);
            break;
          }
        }
      }),
    );
  } finally {
    client.close();
  }
  return { admitted, refused };
}

/**
 * Runs `clients` clients over `threads` worker threads for `seconds`, from `quoteIds` (dealt out evenly), and gathers
 * their calls. The threads begin together, once every one of them is loaded.
 */
export async function floodInThreads(
  opts: Omit<FloodJob, 'clients' | 'quoteIds'> & {
    clients: number;
    quoteIds: string[];
    threads: number;
    seconds: number;
  },
): Promise<FloodResult> {
  const per = Math.ceil(opts.quoteIds.length / opts.threads);
  const workers = Array.from({ length: opts.threads }, (_, t) => {
    const clients = Math.floor(opts.clients / opts.threads) + (t < opts.clients % opts.threads ? 1 : 0);
    const job: FloodJob = {
      url: opts.url,
      token: opts.token,
      clients,
      quoteIds: opts.quoteIds.slice(t * per, (t + 1) * per),
      jitter: opts.jitter,
      retryMs: opts.retryMs,
    };
    const worker = new Worker(new URL(import.meta.url), { workerData: job });
    const failed = new Promise<never>((_, reject) => {
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`flood thread exited with ${code} before answering`)));
    });
    const message = () => Promise.race([new Promise<unknown>((resolve) => worker.once('message', resolve)), failed]);
    return { worker, ready: message(), message };
  });
  await Promise.all(workers.map((w) => w.ready));
  const startAt = epochNow() + 20;
  const window: Window = { startAt, stopAt: startAt + opts.seconds * 1000 };
  const results = await Promise.all(
    workers.map((w) => {
      const done = w.message() as Promise<FloodResult>;
      w.worker.postMessage(window);
      return done;
    }),
  );
  return { admitted: results.flatMap((r) => r.admitted), refused: results.flatMap((r) => r.refused) };
}

if (!isMainThread && parentPort) {
  const port = parentPort;
  // A failure rejects unhandled, which ends the thread with an 'error' that floodInThreads passes on.
  port.once(
    'message',
    (window: Window) =>
      void flood(workerData as FloodJob, window).then((r) => {
        port.postMessage(r);
        port.close();
      }),
  );
  port.postMessage('ready');
}
