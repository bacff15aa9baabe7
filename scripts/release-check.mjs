// `release:check`: proves the release would work (R10.5) without touching this
// checkout: clones HEAD into a temp folder, runs `changeset version` there,
// checks every published package got a CHANGELOG.md, builds, and runs
// `pnpm -r publish --dry-run`; then packs every package and installs the
// tarballs into an empty project: no exact pins, no msw under the gateway, and
// `turnguard serve --mock` answers from that install (R10.3, R10.4). The
// version bump itself is never committed by this script (decision 0252).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkPackedInstall } from './check-packed-install.mjs';
import { PUBLISHED_DIRS, packTarballs } from './pack-tarballs.mjs';

const PNPM = ['-y', 'pnpm@12.4.2'];
const repo = process.cwd();
const work = mkdtempSync(join(tmpdir(), 'turnguard-release-'));
const clone = join(work, 'repo');

function step(command, args, cwd = clone) {
  console.log(`$ ${command} ${args.join(' ')}`);
  const result = spawnSync(command, args, { cwd, stdio: 'inherit', env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1' } });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${result.status}`);
}

try {
  step('git', ['clone', '--quiet', '--no-hardlinks', repo, clone], work);
  step('npx', [...PNPM, 'install', '--frozen-lockfile']);
  step('npx', [...PNPM, 'changeset', 'version']);
  for (const dir of PUBLISHED_DIRS) {
    const { name, version } = JSON.parse(readFileSync(join(clone, dir, 'package.json'), 'utf8'));
    if (!existsSync(join(clone, dir, 'CHANGELOG.md'))) throw new Error(`${name}: changeset version wrote no CHANGELOG.md`);
    console.log(`${name}@${version}: CHANGELOG.md written`);
  }
  step('npx', [...PNPM, 'turbo', 'run', 'build', '--output-logs=errors-only']);
  // --no-git-checks: the clone's tree is dirty with the version bump by design.
  step('npx', [...PNPM, '-r', 'publish', '--dry-run', '--no-git-checks']);
  console.log('$ pack every package and install the tarballs into an empty project');
  const tarballs = packTarballs(clone, join(work, 'tarballs'));
  await checkPackedInstall(tarballs, join(work, 'consumer'));
  console.log('release:check: changeset version, pnpm -r publish --dry-run and the packed install succeeded');
} finally {
  rmSync(work, { recursive: true, force: true });
}
