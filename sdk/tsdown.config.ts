/**
 * How the SDK is built (`npm run sdk:build` → sdk/dist/): ESM for Node and browsers, declarations from isolated
 * declarations (oxc).
 */
import { join } from 'node:path';
import type { UserConfig } from 'tsdown';

const here = import.meta.dirname;

/** The build options; the tests build with these into a temp directory (`outDir` overridden). */
export const sdkBuild: UserConfig = {
  cwd: here,
  entry: { index: join(here, 'src', 'index.ts'), browser: join(here, 'src', 'browser.ts') },
  outDir: join(here, 'dist'),
  tsconfig: join(here, 'tsconfig.json'),
  format: 'esm',
  platform: 'neutral',
  target: 'es2022',
  fixedExtension: true,
  dts: { generator: 'oxc' },
  clean: true,
  sourcemap: false,
  logLevel: 'warn',
};

export default sdkBuild;
