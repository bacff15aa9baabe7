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

/** Installs (or reuses) both clients; returns how to run each one. */
export function installClients(repoRoot, log) {
  const dir = join(repoRoot, '.cache', 'clients', `claude-${CLIENT_VERSIONS.claude}-codex-${CLIENT_VERSIONS.codex}`);
  const modules = join(dir, 'node_modules');
  const done = join(dir, '.installed');
  if (!existsSync(done)) {
    log(`installing @anthropic-ai/claude-code@${CLIENT_VERSIONS.claude} and @openai/codex@${CLIENT_VERSIONS.codex} into ${dir}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'package.json'), '{ "private": true }\n');
    // claude-code's package.json asks for node >= 22, but what runs is its native binary (no Node),
    // so a machine npm with engine-strict=true must not refuse it.
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--save-exact', '--engine-strict=false', '--prefix', dir,
      `@anthropic-ai/claude-code@${CLIENT_VERSIONS.claude}`, `@openai/codex@${CLIENT_VERSIONS.codex}`], { stdio: ['ignore', 'inherit', 'inherit'] });
    writeFileSync(done, new Date().toISOString());
  } else {
    log(`clients cached in ${dir}`);
  }
  return {
    claude: { command: claudeBinary(modules), args: [] },
    codex: { command: process.execPath, args: [join(modules, '@openai', 'codex', 'bin', 'codex.js')] },
  };
}
