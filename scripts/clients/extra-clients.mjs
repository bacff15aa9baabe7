// Two more real agent CLIs for the offline harness: opencode (the AI SDK, here through its
// OpenAI-compatible provider) and Qwen Code (the openai SDK), installed once into
// .cache/clients/opencode-<v>-qwen-<v>/ (git-ignored) by install-clients.mjs's installOnce.
import { mkdirSync, writeFileSync } from 'node:fs';
import { arch, platform } from 'node:os';
import { join } from 'node:path';
import { baseEnv, freshDirs } from './clients.mjs';
import { installOnce } from './install-clients.mjs';

// Pinned so a re-run tests the same clients; bump deliberately.
export const EXTRA_CLIENT_VERSIONS = { opencode: '1.18.33', qwen: '0.24.4' };

const FAKE_OPENAI_KEY = 'sk-turnguard-harness-not-a-real-key';

/** Installs (or reuses) opencode and Qwen Code; returns how to run each one. */
export function installExtraClients(repoRoot, log) {
  const dir = join(repoRoot, '.cache', 'clients', `opencode-${EXTRA_CLIENT_VERSIONS.opencode}-qwen-${EXTRA_CLIENT_VERSIONS.qwen}`);
  const modules = installOnce(dir, [`opencode-ai@${EXTRA_CLIENT_VERSIONS.opencode}`, `@qwen-code/qwen-code@${EXTRA_CLIENT_VERSIONS.qwen}`], log);
  return {
    // npm 11 skips opencode's postinstall, which would link the platform binary: run that binary itself.
    opencode: { command: join(modules, `opencode-${platform()}-${arch()}`, 'bin', 'opencode'), args: [] },
    qwen: { command: process.execPath, args: [join(modules, '@qwen-code', 'qwen-code', 'cli.js')] },
  };
}

/** `opencode run` with a custom OpenAI-compatible provider pointed at `baseUrl` (its /v1 added here). */
export function opencodeRun(binary, baseUrl, prompt, runsDir) {
  const { home, work } = freshDirs(runsDir, 'opencode');
  const config = join(home, 'opencode.json');
  writeFileSync(config, JSON.stringify({
    $schema: 'https://opencode.ai/config.json',
    autoupdate: false,
    share: 'disabled',
    model: 'turnguard/tg-model',
    small_model: 'turnguard/tg-model',
    provider: {
      turnguard: {
        npm: '@ai-sdk/openai-compatible',
        name: 'turnguard',
        options: { baseURL: `${baseUrl}/v1`, apiKey: FAKE_OPENAI_KEY },
        models: { 'tg-model': { name: 'tg-model', tool_call: true, reasoning: true, limit: { context: 128000, output: 8000 } } },
      },
    },
  }, null, 2));
  return {
    command: binary.command,
    args: [...binary.args, 'run', '--model', 'turnguard/tg-model', prompt],
    cwd: work,
    env: { ...baseEnv(home), OPENCODE_CONFIG: config, OPENCODE_DISABLE_MODELS_FETCH: '1', OPENCODE_DISABLE_AUTOUPDATE: '1', OPENCODE_DISABLE_DEFAULT_PLUGINS: '1', OPENCODE_DISABLE_SHARE: '1' },
  };
}

/** `qwen` one-shot with its OpenAI auth pointed at `baseUrl` (its /v1 added here). */
export function qwenRun(binary, baseUrl, prompt, runsDir) {
  const { home, work } = freshDirs(runsDir, 'qwen');
  mkdirSync(join(home, '.qwen'));
  writeFileSync(join(home, '.qwen', 'settings.json'), JSON.stringify({ security: { auth: { selectedType: 'openai' } }, privacy: { usageStatisticsEnabled: false } }));
  return {
    command: binary.command,
    args: [...binary.args, '--yolo', '--model', 'tg-model', '--openai-base-url', `${baseUrl}/v1`, prompt],
    cwd: work,
    env: { ...baseEnv(home), OPENAI_API_KEY: FAKE_OPENAI_KEY, OPENAI_BASE_URL: `${baseUrl}/v1`, OPENAI_MODEL: 'tg-model' },
  };
}
