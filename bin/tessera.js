#!/usr/bin/env -S node --min-semi-space-size=64
// The `tessera` command. Runs src/cli.ts on the project's pinned Node.js (TypeScript via type stripping);
// when started by an older system Node, it re-runs itself with the pinned one from node_modules, with the same flags.
// The flag starts V8's young generation at 64 MB a semi-space: under a flash sale the server allocates about 140 MB
// a second, and with the young generation V8 sized by itself its collections stopped the event loop for 5 % of the
// time, 13-42 ms at a go; with this, about 2 % (docs/performance.md, "The collector"). `npm start` passes the same
// flag (package.json), and so do the tests' and benches' server processes (test/support/server-process.ts).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { enableCompileCache, flushCompileCache } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 17)) {
  const pinned = join(root, 'node_modules', 'node', 'bin', 'node');
  if (!existsSync(pinned)) {
    process.stderr.write(`tessera needs Node.js >= 22.17 (found ${process.version}); run \`npm install\` first.\n`);
    process.exit(1);
  }
  const r = spawnSync(pinned, [...process.execArgv, fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
    stdio: 'inherit',
  });
  process.exit(r.status ?? 1);
}
// V8's compile cache keeps the module graph's compiled code across starts (docs/performance.md, "Start time").
enableCompileCache(join(root, 'node_modules', '.cache', 'tessera', 'compile-cache'));
await import(join(root, 'src', 'cli.ts'));
flushCompileCache();
