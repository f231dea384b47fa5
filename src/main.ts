/**
 * `npm start`: the server (same as `tessera serve`), from one bundled file (src/server-bundle.ts) that is built first
 * when missing or older than the sources; with TESSERA_BUNDLE=0, or without the build tool (an install without
 * devDependencies), from the sources as before. V8's compile cache (under node_modules/.cache/tessera) keeps the
 * compiled code across starts (docs/performance.md, "Start time"); it is turned on before the code loads, so the CLI is
 * imported dynamically.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { enableCompileCache, flushCompileCache } from 'node:module';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { builtServerBundle, serverSourceHash } from './server-bundle.ts';

const ROOT = join(import.meta.dirname, '..');
enableCompileCache(join(ROOT, 'node_modules', '.cache', 'tessera', 'compile-cache'));

/** The bundle's entry for the current sources, built first when missing; undefined: run from the sources. */
function serverEntry(): string | undefined {
  if (process.env.TESSERA_BUNDLE === '0' || !existsSync(join(ROOT, 'node_modules', 'tsdown'))) return undefined;
  const started = performance.nodeTiming.bootstrapComplete; // the phase includes loading this file
  const hash = serverSourceHash();
  let bundle = builtServerBundle(hash);
  if (!bundle) {
    // Built in a child process, so the server never holds the build tool; its report goes to stderr.
    const built = spawnSync(process.execPath, [join(import.meta.dirname, 'server-bundle.ts')], {
      stdio: ['ignore', 2, 'inherit'],
    });
    bundle = builtServerBundle(hash);
    if (!bundle) {
      process.stderr.write(
        `tessera: the server bundle was not built (exit ${built.status}); running from the sources\n`,
      );
      return undefined;
    }
  }
  performance.measure('server bundle', { start: started, end: performance.now(), detail: { startPhase: true } });
  return bundle.entry;
}

await import(serverEntry() ?? './cli.ts');
flushCompileCache(); // written now, not only at exit: a server that is killed keeps it
