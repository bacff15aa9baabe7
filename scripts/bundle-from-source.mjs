// Bundles one entry file into a self-contained CommonJS file with every
// @turnguard/* package resolved to its TypeScript source, so child processes
// (the stats writers, the bench's proxy) run on a clean clone with no dist/
// and on Node 20, which cannot run TypeScript itself.
import { join } from 'node:path';
import { build } from 'tsup';

const WORKSPACE_PACKAGES = ['core', 'adapter-chat', 'adapter-messages', 'adapter-responses', 'stats', 'testkit'];

/** @param {{ entryName: string; entryFile: string; outDir: string; sourceRoot: string }} options */
export async function bundleFromSource({ entryName, entryFile, outDir, sourceRoot }) {
  await build({
    config: false,
    entry: { [entryName]: entryFile },
    outDir,
    format: ['cjs'],
    platform: 'node',
    target: 'node20',
    dts: false,
    sourcemap: false,
    silent: true,
    noExternal: [/.*/],
    esbuildOptions(options) {
      options.alias = Object.fromEntries(
        WORKSPACE_PACKAGES.map((name) => [`@turnguard/${name}`, join(sourceRoot, `packages/${name}/src/index.ts`)]),
      );
    },
  });
  return join(outDir, `${entryName}.cjs`);
}
