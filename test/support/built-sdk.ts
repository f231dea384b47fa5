/**
 * Builds the SDK (sdk/tsdown.config.ts) into a temp directory laid out as an installed package, so tests use the BUILT
 * output through its exports.
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'tsdown';
import { sdkBuild } from '../../sdk/tsdown.config.ts';

export const SDK_SOURCE = join(import.meta.dirname, '..', '..', 'sdk');

export interface BuiltSdk {
  /** The temp root: `node_modules/@tessera/sdk` under it is the built package. */
  root: string;
  /** The package directory (package.json, LICENSE, dist/). */
  packageDir: string;
  /** The built browser bundle (an ES module with no imports). */
  browserBundle: string;
  /** The built client bundle (an ES module with no imports: it runs in browsers as well as Node). */
  clientBundle: string;
  /** Imports the package's `.` export by its name, as an application would. */
  importClient(): Promise<typeof import('@tessera/sdk')>;
  remove(): void;
}

export async function buildSdk(): Promise<BuiltSdk> {
  const root = mkdtempSync(join(tmpdir(), 'tessera-sdk-'));
  const packageDir = join(root, 'node_modules', '@tessera', 'sdk');
  mkdirSync(packageDir, { recursive: true });
  for (const file of ['package.json', 'LICENSE', 'README.md', 'CHANGELOG.md'])
    copyFileSync(join(SDK_SOURCE, file), join(packageDir, file));
  await build({ ...sdkBuild, config: false, outDir: join(packageDir, 'dist'), logLevel: 'error' });
  // A module inside the temp root resolves the package by name through its `exports`, as an installed dependency.
  writeFileSync(
    join(root, 'app.mjs'),
    "export * as client from '@tessera/sdk';\nexport * as browser from '@tessera/sdk/browser';\n",
  );
  return {
    root,
    packageDir,
    browserBundle: join(packageDir, 'dist', 'browser.mjs'),
    clientBundle: join(packageDir, 'dist', 'index.mjs'),
    async importClient() {
      const app = (await import(pathToFileURL(join(root, 'app.mjs')).href)) as {
        client: typeof import('@tessera/sdk');
      };
      return app.client;
    },
    remove() {
      rmSync(root, { recursive: true, force: true });
    },
  };
}
