// createGateway of one source tree, bundled alone (tsup, no dist/): "." is the
// working tree, anything else a git ref extracted read-only (source-trees.mjs).
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { bundleFromSource } from '../../scripts/bundle-from-source.mjs';
import { extractSourceTree } from './source-trees.mjs';

/** Returns the path of a CommonJS file exporting `createGateway`. */
export async function bundleGateway(root, ref, workDir, index) {
  const sourceRoot = ref === '.' ? root : await extractSourceTree(root, ref, join(workDir, `tree-${index}`));
  const entryFile = join(workDir, `gateway-${index}-entry.mjs`);
  await writeFile(entryFile, `export { createGateway } from '${join(sourceRoot, 'apps/gateway/src/create-gateway.ts')}';\n`);
  return bundleFromSource({ entryName: `gateway-${index}`, entryFile, outDir: workDir, sourceRoot });
}
