// pi (`@mariozechner/pi-coding-agent`) for the offline harness: one agent CLI that speaks all
// three protocols, each through a custom provider in its models.json pointed at the gateway.
// Installed once into .cache/clients/pi-<version>/ (git-ignored) like install-clients.mjs does.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { baseEnv, freshDirs } from './clients.mjs';
import { installOnce } from './install-clients.mjs';

// Pinned so a re-run tests the same client; bump deliberately.
export const PI_VERSION = '0.73.1';

const FAKE_KEY = 'sk-turnguard-harness-not-a-real-key';

/** Each protocol as a pi provider: its API name, the path under the gateway, a model id the upstream answers. */
const PROVIDERS = {
  chat: { api: 'openai-completions', path: '/v1', model: 'tg-model' },
  responses: { api: 'openai-responses', path: '/v1', model: 'gpt-5-codex' },
  messages: { api: 'anthropic-messages', path: '', model: 'claude-sonnet-4-5-20250929' },
};

/** Installs (or reuses) pi; returns how to run it. */
export function installPi(repoRoot, log) {
  const modules = installOnce(join(repoRoot, '.cache', 'clients', `pi-${PI_VERSION}`), [`@mariozechner/pi-coding-agent@${PI_VERSION}`], log);
  return { command: process.execPath, args: [join(modules, '@mariozechner', 'pi-coding-agent', 'dist', 'cli.js')] };
}

/** `pi -p` on one protocol: a models.json whose one provider speaks `protocol` to the gateway at `baseUrl`. */
export function piRun(protocol) {
  return (binary, baseUrl, prompt, runsDir) => {
    const { home, work } = freshDirs(runsDir, `pi-${protocol}`);
    const agentDir = join(home, '.pi', 'agent');
    mkdirSync(agentDir, { recursive: true });
    const { api, path, model } = PROVIDERS[protocol];
    // The scripted upstream's Chat is a plain OpenAI-compatible server: a `system` message, no `reasoning_effort`.
    const compat = protocol === 'chat' ? { compat: { supportsDeveloperRole: false, supportsReasoningEffort: false } } : {};
    // No extended thinking on Messages: Anthropic takes no assistant prefill with it on, so cut-continued could not continue (decision 0401).
    const provider = { baseUrl: `${baseUrl}${path}`, api, apiKey: FAKE_KEY, ...compat, models: [{ id: model, reasoning: protocol !== 'messages', contextWindow: 128000, maxTokens: 8000 }] };
    writeFileSync(join(agentDir, 'models.json'), JSON.stringify({ providers: { turnguard: provider } }, null, 2));
    return {
      command: binary.command,
      args: [...binary.args, '-p', '--offline', '--no-session', '--no-extensions', '--no-skills', '--no-context-files', '--provider', 'turnguard', '--model', model, prompt],
      cwd: work,
      env: { ...baseEnv(home), PI_CODING_AGENT_DIR: agentDir, PI_OFFLINE: '1' },
    };
  };
}
