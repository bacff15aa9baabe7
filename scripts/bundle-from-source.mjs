// Bundles one entry file into a self-contained CommonJS file with every
// @turnguard/* package resolved to its TypeScript source, so child processes
// (the stats writers, the bench's proxy) run on a clean clone with no dist/
// and on Node 20, which cannot run TypeScript itself.
import { join } from 'node:path';
import { build } from 'tsup';

const WORKSPACE_PACKAGES = ['core', 'adapter-chat', 'adapter-messages', 'adapter-responses', 'stats', 'testkit'];
const SUBPATH_ENTRIES = [
  ['@turnguard/core/node', 'packages/core/src/node/index.ts'],
  ['@turnguard/testkit/server', 'packages/testkit/src/server.ts'],
];

/**
 * `keepUnusedImports`: ignore `sideEffects: false`, so the bundle holds every
 * module the entry imports, as Node would load them (a test of what loads).
 * @param {{ entryName: string; entryFile: string; outDir: string; sourceRoot: string; keepUnusedImports?: boolean }} options
 */
export async function bundleFromSource({ entryName, entryFile, outDir, sourceRoot, keepUnusedImports = false }) {
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
      if (keepUnusedImports) options.ignoreAnnotations = true;
      // Subpath entries first: esbuild would otherwise read `@turnguard/testkit/server` as a path under the alias of `@turnguard/testkit`.
      options.alias = Object.fromEntries([
        ...SUBPATH_ENTRIES.map(([specifier, file]) => [specifier, join(sourceRoot, file)]),
        ...WORKSPACE_PACKAGES.map((name) => [`@turnguard/${name}`, join(sourceRoot, `packages/${name}/src/index.ts`)]),
      ]);
    },
  });
  return join(outDir, `${entryName}.cjs`);
}
