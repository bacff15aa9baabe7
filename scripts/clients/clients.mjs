// How each real client is pointed at the gateway (through the recording tap).
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

// Fake keys: the scripted upstream accepts anything, and nothing leaves loopback.
const FAKE_ANTHROPIC_KEY = 'sk-ant-api03-turnguard-harness-not-a-real-key';
const FAKE_OPENAI_KEY = 'sk-turnguard-harness-not-a-real-key';

// Codex refuses to create its helper binaries under /tmp, so runs live under the cache.
export function freshDirs(runsDir, name) {
  mkdirSync(runsDir, { recursive: true });
  const root = mkdtempSync(join(runsDir, `${name}-`));
  const home = join(root, 'home');
  const work = join(root, 'work');
  mkdirSync(home);
  mkdirSync(work);
  return { home, work };
}

export function baseEnv(home) {
  return { PATH: process.env.PATH, HOME: home, TERM: 'dumb', NO_COLOR: '1', LANG: 'C.UTF-8' };
}

/** `claude -p` with only the env vars the issue names, plus an isolated HOME. */
export function claudeRun(binary, gatewayUrl, prompt, runsDir) {
  const { home, work } = freshDirs(runsDir, 'claude');
  return {
    command: binary.command,
    args: [...binary.args, '-p', prompt, '--max-turns', '4', '--allowedTools', 'Bash(echo:*)'],
    cwd: work,
    env: {
      ...baseEnv(home),
      ANTHROPIC_BASE_URL: gatewayUrl,
      ANTHROPIC_API_KEY: FAKE_ANTHROPIC_KEY,
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    },
  };
}

/**
 * `codex exec` with a custom model provider (keys from codex-rs/core/src/model_provider_info.rs:
 * name, base_url, env_key, wire_api). Retries stay at codex's defaults on purpose, so the
 * report shows how often codex resends a failed turn.
 */
export function codexRun(binary, gatewayUrl, prompt, runsDir) {
  const { home, work } = freshDirs(runsDir, 'codex');
  const codexHome = join(home, '.codex');
  mkdirSync(codexHome);
  writeFileSync(join(codexHome, 'config.toml'), [
    'model = "gpt-5-codex"',
    'model_provider = "turnguard"',
    'model_reasoning_summary = "auto"',
    '',
    '[model_providers.turnguard]',
    'name = "turnguard gateway"',
    `base_url = "${gatewayUrl}/v1"`,
    'env_key = "TURNGUARD_HARNESS_OPENAI_KEY"',
    'wire_api = "responses"',
    '',
  ].join('\n'));
  return {
    command: binary.command,
    args: [...binary.args, 'exec', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox', '--color', 'never', '-C', work, prompt],
    cwd: work,
    env: { ...baseEnv(home), CODEX_HOME: codexHome, TURNGUARD_HARNESS_OPENAI_KEY: FAKE_OPENAI_KEY },
  };
}
