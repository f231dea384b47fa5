/**
 * Builds the console application (npm run console:build; also npm's `prepare`, so `npm install` and `npm ci` leave it
 * built): a no-op when the build for the current sources is already there.
 */
import { ensureConsoleBuilt } from '../src/console-pages/build.ts';

const started = performance.now();
const bundle = await ensureConsoleBuilt();
process.stdout.write(`Console built: ${bundle.dir} (${Math.round(performance.now() - started)} ms)\n`);
