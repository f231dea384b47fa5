/**
 * `npm run conformance:acp -- <schema dir>`: starts Tessera (embedded PostgreSQL, or DATABASE_URL), drives the ACP
 * checkout flow over real HTTP, and validates every request and response body with Ajv (JSON Schema 2020-12)
 * against the official ACP schemas in <schema dir> (the reference checkout's root, or its json-schema directory).
 * The order webhooks the server sends to a local receiver (ACP's Merchant-Signature checked) are validated against
 * `WebhookEvent` of openapi.agentic_checkout_webhook.yaml (beside the json-schema directory, under openapi/).
 * Prints one summary line; exits non-zero on any invalid body or a broken flow.
 *
 * Each check is a `Flow` that sends requests and hands bodies to `check(bundle, def, body, label)`: the checkout flow
 * (schema.agentic_checkout.json, schema.delegate_payment.json) and the product feed (schema.feed.json).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkoutFlow } from './conformance-acp/checkout-flow.ts';
import { ACP_VERSION, type Ctx, type Flow } from './conformance-acp/context.ts';
import { feedFlow } from './conformance-acp/feed-flow.ts';
import { discountFlow, orderWebhookFlow, twoLineFlow } from './conformance-acp/order-flows.ts';
import { schemaDir, validators, webhookValidator } from './conformance-acp/schemas.ts';
import { startReceiver } from './conformance-acp/webhooks.ts';

const ROOT = join(import.meta.dirname, '..');
const CLI = join(ROOT, 'src', 'cli.ts');

/** Every check this command runs. */
const FLOWS: Flow[] = [checkoutFlow, orderWebhookFlow, twoLineFlow, discountFlow, feedFlow];

/** `tessera serve` on a free port; resolves with its URL. */
async function startServer(env: NodeJS.ProcessEnv): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [CLI, 'serve'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-4000)));
  const url = await new Promise<string>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`the server did not start in 120 s: ${err.trim()}`)), 120_000);
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /Tessera is running at (\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        ok(m[1]!);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`the server exited with ${code}: ${err.trim()}`));
    });
  });
  return { url, child };
}

async function call(
  url: string,
  method: string,
  path: string,
  want: number,
  body: unknown,
  headers: Record<string, string>,
): Promise<any> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: Object.fromEntries(
      Object.entries({ 'content-type': 'application/json', ...headers }).filter(([, v]) => v !== ''),
    ),
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== want)
    throw new Error(`${method} ${path}: expected ${want}, got ${res.status}: ${text.slice(0, 500)}`);
  return text ? JSON.parse(text) : undefined;
}

async function main(): Promise<number> {
  const dir = schemaDir(process.argv[2]);
  const validator = validators(dir);
  const dataDir = process.env.DATABASE_URL ? undefined : mkdtempSync(join(tmpdir(), 'tessera-conformance-'));
  if (dataDir) chmodSync(dataDir, 0o755);
  const env = {
    ...process.env,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_MINUTE: '100000',
    WEBHOOK_ALLOW_LOOPBACK: 'true',
    ...(dataDir ? { TESSERA_DATA_DIR: dataDir } : {}),
  };
  let server: ChildProcess | undefined;
  const receiver = await startReceiver();
  const checkWebhook = webhookValidator(dir);
  let valid = 0;
  let invalid = 0;
  let broken = 0;
  try {
    const started = await startServer(env);
    server = started.child;
    // A merchant of our own (the embedded server is shared with this second process while `serve` runs).
    const boot = spawnSync(
      process.execPath,
      [
        CLI,
        'bootstrap',
        '--org',
        'ACP Conformance',
        '--email',
        `conformance-${randomUUID()}@example.test`,
        '--shop',
        'Conformance Shop',
        '--currency',
        'USD',
        '--json',
      ],
      {
        cwd: ROOT,
        env,
        encoding: 'utf8',
        timeout: 120_000,
      },
    );
    if (boot.status !== 0) throw new Error(`bootstrap failed: ${boot.stderr.trim()}`);
    const { apiKey, shopId } = JSON.parse(boot.stdout) as { apiKey: string; shopId: string };
    const ctx: Ctx = {
      url: started.url,
      apiKey,
      shopId,
      check(bundle, def, body, label) {
        const validate = validator(bundle, def);
        if (validate(body)) {
          valid++;
          return;
        }
        invalid++;
        process.stderr.write(
          `invalid ${def} (${bundle}) — ${label}: ${JSON.stringify(validate.errors?.slice(0, 5))}\n  body: ${JSON.stringify(body)}\n`,
        );
      },
      acp: (method, path, want, body, headers = {}) =>
        call(started.url, method, path, want, body, {
          authorization: `Bearer ${apiKey}`,
          'api-version': ACP_VERSION,
          ...(method === 'POST' ? { 'idempotency-key': randomUUID() } : {}),
          ...headers,
        }),
      rest: (method, path, want, body, headers = {}) =>
        call(started.url, method, path, want, body, { authorization: `Bearer ${apiKey}`, ...headers }),
      receiver,
      checkWebhook(body, label) {
        if (checkWebhook(body)) {
          valid++;
          return;
        }
        invalid++;
        process.stderr.write(
          `invalid WebhookEvent (openapi.agentic_checkout_webhook.yaml) — ${label}: ${JSON.stringify(checkWebhook.errors?.slice(0, 5))}\n  body: ${JSON.stringify(body)}\n`,
        );
      },
      anon: (path, want) => call(started.url, 'GET', path, want, undefined, {}),
    };
    for (const flow of FLOWS) {
      try {
        await flow.run(ctx);
      } catch (err) {
        broken++;
        process.stderr.write(`flow "${flow.name}" broke: ${(err as Error).message}\n`);
      }
    }
  } finally {
    if (server && server.exitCode === null) {
      const exited = new Promise((ok) => server!.once('exit', ok));
      server.kill('SIGTERM');
      await exited;
    }
    await receiver.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }
  process.stdout.write(
    `acp conformance: ${valid} bodies valid, ${invalid} invalid${broken ? `, ${broken} of ${FLOWS.length} flows broke` : ''}\n`,
  );
  return invalid === 0 && broken === 0 && valid > 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`acp conformance: ${(err as Error).message}\n`);
    process.exit(2);
  },
);
