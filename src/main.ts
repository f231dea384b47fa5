/**
 * `npm start`: the server (same as `tessera serve`). V8's compile cache (under node_modules/.cache/tessera) keeps the
 * module graph's compiled code across starts, which takes about a third off loading it (docs/performance.md, "Start
 * time"); it is turned on before the graph loads, so the CLI is imported dynamically.
 */
import { enableCompileCache, flushCompileCache } from 'node:module';
import { join } from 'node:path';

enableCompileCache(join(import.meta.dirname, '..', 'node_modules', '.cache', 'tessera', 'compile-cache'));
await import('./cli.ts');
flushCompileCache(); // written now, not only at exit: a server that is killed keeps it
