// Installs the two real CLIs once into .cache/clients/<versions>/ (git-ignored) and
// says where their executables are. Re-runs reuse the cache: no network needed.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { arch, platform } from 'node:os';
import { join } from 'node:path';

// Pinned so a re-run tests the same clients; bump deliberately.
export const CLIENT_VERSIONS = { claude: '2.1.332', codex: '0.171.0' };

function claudeBinary(modules) {
  // npm 11 skips the wrapper's postinstall (allowScripts), which would copy the native
  // binary over bin/claude.exe; the platform package holds the same binary.
  const native = join(modules, '@anthropic-ai', `claude-code-${platform()}-${arch()}`, 'claude');
  return existsSync(native) ? native : join(modules, '@anthropic-ai', 'claude-code', 'bin', 'claude.exe');
}

/**
 * Installs pinned npm packages once into `dir` (under the git-ignored .cache) and returns its
 * node_modules; a finished install leaves `.installed`, so a re-run needs no network.
 */
export function installOnce(dir, packages, log, packageJson = '{ "private": true }\n') {
  const modules = join(dir, 'node_modules');
  if (existsSync(join(dir, '.installed'))) {
    log(`cached in ${dir}`);
    return modules;
  }
  log(`installing ${packages.join(' ')} into ${dir}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), packageJson);
  // claude-code and Qwen Code ask for node >= 22, yet run here (a native binary; code that needs no newer
  // Node): a machine npm with engine-strict=true must not refuse them.
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--save-exact', '--engine-strict=false', '--prefix', dir, ...packages], { stdio: ['ignore', 'inherit', 'inherit'] });
  writeFileSync(join(dir, '.installed'), new Date().toISOString());
  return modules;
}

/** Installs (or reuses) both clients; returns how to run each one. */
export function installClients(repoRoot, log) {
  const dir = join(repoRoot, '.cache', 'clients', `claude-${CLIENT_VERSIONS.claude}-codex-${CLIENT_VERSIONS.codex}`);
  const modules = installOnce(dir, [`@anthropic-ai/claude-code@${CLIENT_VERSIONS.claude}`, `@openai/codex@${CLIENT_VERSIONS.codex}`], log);
  return {
    claude: { command: claudeBinary(modules), args: [] },
    codex: { command: process.execPath, args: [join(modules, '@openai', 'codex', 'bin', 'codex.js')] },
  };
}
