// runTurn and the three adapters as they are in a source tree (the working
// tree, or a git ref extracted by bench/gateway/source-trees.mjs), bundled with
// tsup into one ESM file, so a bench can run two versions side by side in one
// process without building either into packages/*/dist.
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { build } from 'tsup';
import { extractSourceTree } from '../gateway/source-trees.mjs';

const PACKAGES = ['core', 'adapter-chat', 'adapter-messages', 'adapter-responses'];

const ENTRY = `
export { runTurn } from '@turnguard/core';
import { chatAdapter } from '@turnguard/adapter-chat';
import { messagesAdapter } from '@turnguard/adapter-messages';
import { responsesAdapter } from '@turnguard/adapter-responses';
export const adapters = { chat: chatAdapter, messages: messagesAdapter, responses: responsesAdapter };
`;

/** Bundles `sourceRoot`'s packages into `outDir`; returns the bundle's path. */
export async function bundleTurnLib(sourceRoot, outDir) {
  await mkdir(outDir, { recursive: true });
  const source = join(outDir, 'turn-lib-entry.mjs');
  await writeFile(source, ENTRY);
  await build({
    config: false,
    entry: { 'turn-lib': source },
    outDir,
    format: ['esm'],
    platform: 'node',
    target: 'node20',
    dts: false,
    silent: true,
    noExternal: [/.*/],
    esbuildOptions(options) {
      options.alias = Object.fromEntries(PACKAGES.map((name) => [`@turnguard/${name}`, join(sourceRoot, `packages/${name}/src/index.ts`)]));
    },
  });
  // tsup names the ESM output .js or .mjs depending on the nearest package.json.
  const output = (await readdir(outDir)).find((name) => name.startsWith('turn-lib.') && !name.endsWith('.map'));
  return join(outDir, output);
}

/** `{ current, [ref]: path }`: the working tree, and `ref` extracted read-only beside it when given. */
export async function bundleTurnLibs(root, workDir, ref) {
  const libs = { current: await bundleTurnLib(root, join(workDir, 'current')) };
  if (ref !== undefined) libs[ref] = await bundleTurnLib(await extractSourceTree(root, ref, join(workDir, 'tree')), join(workDir, 'baseline'));
  return libs;
}
