// A tree of the gateway's sources as they are at a git ref, for side-by-side benches:
// extracted read-only with `git archive`, resolving dependencies from this checkout's node_modules.
import { execFileSync } from 'node:child_process';
import { mkdir, symlink } from 'node:fs/promises';
import { join } from 'node:path';

export const WORKSPACE_PACKAGES = ['core', 'adapter-chat', 'adapter-messages', 'adapter-responses', 'stats', 'testkit'];

/** Extracts bench/gateway, apps/gateway/src (with the package.json its build info reads) and the packages' src at `ref` into `tree`. */
export async function extractSourceTree(root, ref, tree) {
  await mkdir(tree, { recursive: true });
  const dirs = ['bench/gateway', 'apps/gateway/src', 'apps/gateway/package.json', ...WORKSPACE_PACKAGES.map((name) => `packages/${name}/src`)];
  const archive = execFileSync('git', ['-C', root, 'archive', ref, ...dirs], { maxBuffer: 256 * 1024 * 1024 });
  execFileSync('tar', ['-x', '-C', tree], { input: archive });
  await symlink(join(root, 'node_modules'), join(tree, 'node_modules'));
  for (const dir of ['apps/gateway', ...WORKSPACE_PACKAGES.map((name) => `packages/${name}`)]) await symlink(join(root, dir, 'node_modules'), join(tree, dir, 'node_modules'));
  return tree;
}
