/** The `tessera` command line: serve, mcp (stdio), migrate, bootstrap. Human output goes to stdout, logs to stderr. */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, type Config } from './kernel/config.ts';
import { createLogger, endLog } from './log.ts';
import { SCOPES, type Scope } from './kernel/principal.ts';
import type { DemoData } from './domain/merchants/demo-seed.ts';
import { EmbeddedPostgresError, startEmbeddedPostgres } from './storage/embedded-postgres.ts';
import { startMarksSoFar, startPhase } from './kernel/start-phase.ts';
// The rest is imported where a command needs it: `serve` starts the embedded PostgreSQL first, so that it starts
// while the rest of the module graph loads (docs/performance.md, "Start time").

async function usage(): Promise<string> {
  const [{ NETWORK_USAGE }, { ADMIN_USAGE }] = await Promise.all([
    import('./cli-network.ts'),
    import('./cli-admin.ts'),
  ]);
  return `Usage: tessera <command> [options]

Commands:
  serve                      Start the HTTP server (REST /v1, MCP /mcp, A2A). Default command.
  mcp [--token T]            Serve MCP over stdio; the credential comes from --token or TESSERA_TOKEN.
  migrate                    Apply database migrations and exit.
  bootstrap --org NAME --email EMAIL --shop NAME [--currency EUR] [--scopes a,b] [--json]
                             Create an organization, its owner, a shop and an API key.
${NETWORK_USAGE}
${ADMIN_USAGE}

Environment: PORT, HOST, PUBLIC_URL, DATABASE_URL (unset: embedded PostgreSQL in TESSERA_DATA_DIR), LOG_LEVEL,
TESSERA_SECRET, TESSERA_TOKEN, SMTP_URL, MAIL_FROM and more: the README's configuration table lists them all.`;
}

/** This server's version (package.json), on the start line. */
const VERSION = (
  JSON.parse(readFileSync(join(import.meta.dirname, '..', 'package.json'), 'utf8')) as { version: string }
).version;

function fail(message: string, code = 1): never {
  process.stderr.write(`tessera: ${message}\n`);
  process.exit(code);
}

async function serve(config: Config): Promise<void> {
  const log = createLogger(config.logLevel);
  let at = startMarksSoFar(log);
  const embedded = config.databaseUrl
    ? undefined
    : startEmbeddedPostgres(config.dataDir, (line) => log.debug({ postgres: line }, 'embedded postgres'));
  embedded?.catch(() => undefined); // awaited by connectDatabase; meanwhile not an unhandled rejection
  const [{ connectDatabase, databaseLocation }, { createApp }, { devMailEnabled }, demoSeed] = await Promise.all([
    import('./storage/connect.ts'),
    import('./app.ts'),
    import('./rest/dev-mail-page.ts'),
    import('./domain/merchants/demo-seed.ts'),
  ]);
  const { DEMO_OWNER_EMAIL, demoBuyerSignInUrl, seedDemo } = demoSeed;
  at = startPhase(log, 'modules (while PostgreSQL starts)', at);
  const conn = await connectDatabase(config, log, embedded);
  at = performance.now();
  let demo: DemoData | undefined;
  if (conn.embedded) {
    const file = join(resolve(config.dataDir), 'demo.json');
    if (existsSync(file)) demo = JSON.parse(readFileSync(file, 'utf8')) as DemoData;
    else {
      demo = await conn.db.transaction((em) => seedDemo(em, new Date()));
      writeFileSync(file, JSON.stringify(demo, null, 2), { mode: 0o600 });
    }
  }
  at = startPhase(log, 'demo seed', at);
  const app = await createApp(config, conn.db, { log });
  at = startPhase(log, 'create app', at);
  const url = await app.listen();
  startPhase(log, 'listen', at);
  const lines = [
    `Tessera is running at ${url}`,
    `  Console   ${url}/console   (merchants: sign in by e-mail)`,
    `  REST      ${url}/v1   (OpenAPI: ${url}/v1/openapi.json, reference: ${url}/docs)`,
    `  MCP       ${url}/mcp  (Streamable HTTP; stdio: npx tessera mcp)`,
    `  A2A       ${url}/.well-known/agent-card.json`,
    `  Health    ${url}/healthz  ${url}/readyz  ${url}/metrics`,
    `  Buyers    ${demoBuyerSignInUrl(url, demo)}${demo ? '   (demo shop: save a card, grant a permission)' : ''}`,
  ];
  if (devMailEnabled(config))
    lines.push(
      `  Mail      ${url}/dev/mail   (no SMTP_URL: sign-in links and codes are kept here; also \`npx tessera mail\`)`,
    );
  if (demo) {
    lines.push(
      '',
      'Demo data (embedded database):',
      `  Owner     ${DEMO_OWNER_EMAIL}   (sign in at ${url}/console; the link arrives in the mail outbox)`,
      `  API key   ${demo.apiKey}   (scopes merchant:read, merchant:write, merchant:admin)`,
      `  Shop      ${demo.shopId}`,
      `  Event     ${demo.eventId}   Pool ${demo.poolId}`,
      `  Tiers     ${demo.tierIds.join('  ')}`,
      `  Try:      curl -H "Authorization: Bearer ${demo.apiKey}" "${url}/v1/integration/pools?merchantId=${demo.shopId}"`,
      `  Quote:    curl -X POST -H "Authorization: Bearer ${demo.apiKey}" -H 'content-type: application/json' -d '{"tierId":"${demo.tierIds[0]}","quantity":2}' ${url}/v1/ticketing/quotes`,
    );
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  log.info({ url, ...databaseLocation(config), version: VERSION }, 'listening');
  // What no request needs before it is ready loads now, in the background (docs/performance.md, "Start time").
  void import('./protocols/oauth/provider.ts')
    .then((m) => m.loadOidcProvider())
    .then(() => import('./protocols/mcp/http.ts'))
    .then((m) => m.loadMcpServer())
    .catch(() => undefined);
  let stopping = false;
  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    await app.close();
    await conn.close();
    log.info('stopped');
    await endLog(log); // every line written, in order, before the process ends
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

async function migrate(config: Config): Promise<void> {
  const log = createLogger(config.logLevel);
  const { connectDatabase } = await import('./storage/connect.ts');
  const conn = await connectDatabase(config, log);
  await conn.close();
  process.stdout.write('Migrations are up to date.\n');
}

function parseScopes(raw: string | undefined): Scope[] {
  if (!raw) return ['merchant:read', 'merchant:write', 'merchant:admin'];
  const scopes = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));
  if (bad.length) fail(`unknown scope ${bad.join(', ')}; allowed: ${SCOPES.join(', ')}`, 2);
  return scopes as Scope[];
}

async function bootstrap(config: Config, args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      org: { type: 'string' },
      email: { type: 'string' },
      shop: { type: 'string' },
      currency: { type: 'string' },
      scopes: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (!values.org || !values.email || !values.shop) fail('bootstrap needs --org, --email and --shop', 2);
  const [{ bootstrapOrganization, EMAIL_MAX, NAME_MAX }, { connectDatabase }] = await Promise.all([
    import('./domain/merchants/merchants.ts'),
    import('./storage/connect.ts'),
  ]);
  if (!/^[^@\s]+@[^@\s]+$/.test(values.email) || values.email.length > EMAIL_MAX)
    fail('--email is not an e-mail address', 2);
  for (const [flag, name] of [
    ['--org', values.org],
    ['--shop', values.shop],
  ] as const)
    if (!name.trim() || name.length > NAME_MAX) fail(`${flag} must be a name of 1 to ${NAME_MAX} characters`, 2);
  const currency = (values.currency ?? 'EUR').toUpperCase();
  if (!/^[A-Z]{3}$/.test(currency)) fail('--currency must be an ISO 4217 code such as EUR', 2);
  const scopes = parseScopes(values.scopes);
  const log = createLogger(config.logLevel);
  const conn = await connectDatabase(config, log);
  const result = await conn.db.transaction((em) =>
    bootstrapOrganization(
      em,
      { organization: values.org!, email: values.email!, shop: values.shop!, currency, scopes },
      new Date(),
    ),
  );
  await conn.close();
  if (values.json) process.stdout.write(`${JSON.stringify(result)}\n`);
  else {
    process.stdout.write(
      `Organization ${result.organizationId}\nOwner        ${result.ownerId}\nShop         ${result.shopId}\n` +
        `API key      ${result.apiKey}\n(The key is shown once; it is stored hashed.)\n`,
    );
  }
}

async function main(argv: string[]): Promise<void> {
  const [command = 'serve', ...rest] = argv;
  // `tessera --help`, and `--help`/`-h` after any command (`tessera mail --help`): the usage, exit 0.
  const help = ['--help', '-h'];
  if (command === 'help' || help.includes(command) || rest.some((a) => help.includes(a))) {
    process.stdout.write(`${await usage()}\n`);
    return;
  }
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) fail(err.message, 2);
    throw err;
  }
  switch (command) {
    case 'serve':
      return serve(config);
    case 'migrate':
      return migrate(config);
    case 'mail':
    case 'console-token':
    case 'staff':
      process.stdout.write(`${await (await import('./cli-admin.ts')).adminCommand(config, command, rest)}\n`);
      return;
    case 'network':
      process.stdout.write(`${await (await import('./cli-network.ts')).networkCommand(config, rest)}\n`);
      return;
    case 'mcp': {
      const { values } = parseArgs({ args: rest, options: { token: { type: 'string' } }, strict: true });
      return (await import('./cli-mcp.ts')).runMcpStdio({ config, token: values.token });
    }
    case 'bootstrap':
      return bootstrap(config, rest);
    default:
      fail(`unknown command "${command}"\n\n${await usage()}`, 2);
  }
}

main(process.argv.slice(2)).catch(async (err: unknown) => {
  if (err instanceof EmbeddedPostgresError) fail(err.message);
  const { UsageError } = await import('./cli-network.ts');
  if (err instanceof UsageError) fail(err.message, 2);
  if (err instanceof Error && /parseArgs|ERR_PARSE_ARGS/.test(`${(err as { code?: string }).code ?? ''}`))
    fail(err.message, 2);
  fail(err instanceof Error ? err.message : String(err));
});
