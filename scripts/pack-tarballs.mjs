// `npm run pack:tarballs`: until the packages are on npm, this is how to install
// them: build every package and pack it as `pnpm publish` would (workspace:
// ranges replaced) into .tarballs/, then print the one `npm install` line that
// installs them together (R10.4). The release check packs the same way.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PUBLISHED_DIRS = [
  'packages/core',
  'packages/adapter-chat',
  'packages/adapter-messages',
  'packages/adapter-responses',
  'packages/stats',
  'packages/testkit',
  'apps/gateway',
  'apps/probe',
];
const PNPM = ['-y', 'pnpm@12.4.2'];

function run(command, args, cwd) {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1' } });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${result.status}\n${result.stdout}${result.stderr}`);
  return result.stdout;
}

/** Builds and packs every published package of `repo` into `dest`; returns the tarballs' absolute paths. */
export function packTarballs(repo, dest) {
  run('npx', [...PNPM, 'turbo', 'run', 'build', '--output-logs=errors-only'], repo);
  rmSync(dest, { recursive: true, force: true });
  mkdirSync(dest, { recursive: true });
  for (const dir of PUBLISHED_DIRS) run('npx', [...PNPM, 'pack', '--pack-destination', dest], join(repo, dir));
  return readdirSync(dest).filter((file) => file.endsWith('.tgz')).map((file) => join(dest, file)).sort();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const repo = resolve(fileURLToPath(new URL('..', import.meta.url)));
  const tarballs = packTarballs(repo, join(repo, '.tarballs'));
  console.log(`Packed ${tarballs.length} packages into ${join(repo, '.tarballs')}. In your project, install the ones you need in one command, e.g. all of them:\n`);
  console.log(`npm install ${tarballs.join(' ')}`);
}
