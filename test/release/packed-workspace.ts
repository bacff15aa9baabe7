/**
 * Packs every workspace package the way `pnpm publish` would (workspace:
 * ranges replaced) and installs the tarballs with npm into a consumer folder
 * outside the monorepo, so what is tested is what a user gets (R10.2–R10.4).
 */
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packTarballs } from '../../scripts/pack-tarballs.mjs';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
// The published packages and how they are packed: the same list and steps `npm run pack:tarballs` uses.
export { PUBLISHED_DIRS } from '../../scripts/pack-tarballs.mjs';

export interface PackageManifest {
  name: string;
  version: string;
  bin?: Record<string, string>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

export function readManifest(dir: string): PackageManifest {
  return JSON.parse(readFileSync(join(REPO_ROOT, dir, 'package.json'), 'utf8')) as PackageManifest;
}

/** Runs a command; a non-zero exit throws with its output, so a failing step names itself. */
export function run(command: string, args: readonly string[], cwd: string, allowFailure = false): SpawnSyncReturns<string> {
  const result = spawnSync(command, args, {
    cwd,
    encoding: 'utf8',
    // No CI colours, no npm update notice, no turbo telemetry in the captured output.
    env: { ...process.env, NO_COLOR: '1', npm_config_update_notifier: 'false', TURBO_TELEMETRY_DISABLED: '1' },
    maxBuffer: 64 * 1024 * 1024,
  });
  if (!allowFailure && result.status !== 0) {
    throw new Error(`${command} ${args.join(' ')} exited ${String(result.status)}\n${result.stdout}\n${result.stderr}`);
  }
  return result;
}

/** Builds (turbo's cache makes this a no-op inside `npm test`) and packs every published package into `dest`. */
export function packWorkspace(dest: string): string[] {
  return packTarballs(REPO_ROOT, dest);
}

/** The lowest version a `^x.y.z` peer range claims (the only range form the packages use). */
export function lowestOfCaretRange(range: string): string {
  const match = /^\^(\d+\.\d+\.\d+)$/.exec(range);
  if (match === null) throw new Error(`peer range ${range} is not of the form ^x.y.z`);
  return match[1]!;
}

const NPM_INSTALL = ['install', '--no-audit', '--no-fund', '--ignore-scripts'];

/** One npm install of the tarballs plus the user's own packages, in a plain folder (no workspace). */
export function installConsumer(dir: string, tarballs: readonly string[], userPackages: readonly string[]): void {
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ name: 'turnguard-consumer', private: true, type: 'module' }, null, 2)}\n`);
  run('npm', [...NPM_INSTALL, ...tarballs, ...userPackages], dir);
}

/**
 * Swaps in other versions of the user's packages without touching the rest.
 * `--legacy-peer-deps`: msw 2.0–2.2 cap their own optional TypeScript peer at 5.2,
 * which says nothing about the testkit.
 */
export function reinstallUserPackages(dir: string, userPackages: readonly string[]): void {
  run('npm', [...NPM_INSTALL, '--no-save', '--legacy-peer-deps', ...userPackages], dir);
}

export type ModuleResolution = 'bundler' | 'node16' | 'nodenext';

/** A strict Node consumer's tsconfig: no DOM unless asked, every .d.ts checked (skipLibCheck false). */
export function writeTsconfig(dir: string, name: string, resolution: ModuleResolution, files: string[], lib: string[] = ['es2023']): string {
  const compilerOptions = {
    strict: true,
    skipLibCheck: false,
    noEmit: true,
    target: 'es2022',
    lib,
    types: ['node'],
    module: resolution === 'bundler' ? 'esnext' : resolution,
    moduleResolution: resolution,
  };
  const file = join(dir, `tsconfig.${name}.json`);
  writeFileSync(file, `${JSON.stringify({ compilerOptions, files }, null, 2)}\n`);
  return file;
}

/** `tsc -p`, returning its diagnostics (empty when the program compiles). */
export function typecheck(dir: string, tsconfig: string): string {
  const result = run(join(dir, 'node_modules', '.bin', 'tsc'), ['-p', tsconfig, '--pretty', 'false'], dir, true);
  return result.status === 0 ? '' : `${result.stdout}${result.stderr}`.trim() || `tsc exited ${String(result.status)}`;
}
