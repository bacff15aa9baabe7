#!/usr/bin/env node
// The AI SDK and LangChain, as their users call them, against `turnguard serve --mock` (loopback
// only): every protocol each one speaks, a plain answer and a cut thinking stream the gateway
// recovers. Prints what each caller got (text, finish reason, error) — the check a user would
// make before trusting the gateway. Not part of `npm test`: it installs the libraries from the
// registry once into .cache/clients/ (git-ignored).
// Usage: node scripts/clients/sdk-clients.mjs [--config <gateway config file>] [--model <name> …]
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { installOnce } from './install-clients.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
// The newest releases that still run on Node 20 (ai 7 and @ai-sdk/* 4 need Node 22); bump deliberately.
const VERSIONS = {
  ai: '6.0.333',
  '@ai-sdk/openai': '3.0.141',
  '@ai-sdk/anthropic': '3.0.140',
  '@langchain/core': '1.4.0',
  '@langchain/openai': '1.5.0',
  '@langchain/anthropic': '1.5.11',
};
const CLIENTS = [
  ['ai-sdk', 'chat'],
  ['ai-sdk', 'responses'],
  ['ai-sdk', 'messages'],
  ['langchain', 'chat'],
  ['langchain', 'responses'],
  ['langchain', 'messages'],
];
const log = (line) => process.stderr.write(`[sdk-clients] ${line}\n`);

function option(name) {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

function optionList(name) {
  return process.argv.flatMap((arg, index) => (arg === name ? [process.argv[index + 1]] : []));
}

const RUNNER = `
import { streamText } from 'ai';
import { createOpenAI } from '@ai-sdk/openai';
import { createAnthropic } from '@ai-sdk/anthropic';
import { ChatOpenAI } from '@langchain/openai';
import { ChatAnthropic } from '@langchain/anthropic';

const [, , gateway, client, protocol, model] = process.argv;
const apiKey = 'sk-turnguard-harness-not-a-real-key';
const prompt = 'Think it over, then say hello.';

async function viaAiSdk() {
  const provider = protocol === 'messages' ? createAnthropic({ baseURL: gateway + '/v1', apiKey }) : createOpenAI({ baseURL: gateway + '/v1', apiKey });
  const languageModel = protocol === 'chat' ? provider.chat(model) : protocol === 'responses' ? provider.responses(model) : provider(model);
  const result = streamText({ model: languageModel, prompt, maxRetries: 0 });
  let text = '';
  let reasoning = 0;
  let error;
  for await (const part of result.fullStream) {
    if (part.type === 'text-delta') text += part.text;
    if (part.type === 'reasoning-delta') reasoning += part.text.length;
    if (part.type === 'error') error = String(part.error?.message ?? part.error);
  }
  return { text, reasoningChars: reasoning, finish: error === undefined ? await result.finishReason : undefined, error };
}

async function viaLangChain() {
  const llm =
    protocol === 'messages'
      ? new ChatAnthropic({ model, apiKey, anthropicApiUrl: gateway, maxRetries: 0 })
      : new ChatOpenAI({ model, apiKey, configuration: { baseURL: gateway + '/v1' }, useResponsesApi: protocol === 'responses', maxRetries: 0 });
  let text = '';
  let finish;
  for await (const chunk of await llm.stream(prompt)) {
    const content = chunk.content;
    if (typeof content === 'string') text += content;
    else for (const part of content) if (part.type === 'text' || part.type === 'output_text') text += part.text;
    finish = chunk.response_metadata?.finish_reason ?? chunk.response_metadata?.stop_reason ?? chunk.response_metadata?.status ?? finish;
  }
  return { text, finish };
}

try {
  console.log(JSON.stringify(client === 'ai-sdk' ? await viaAiSdk() : await viaLangChain()));
} catch (error) {
  console.log(JSON.stringify({ error: String(error?.message ?? error).slice(0, 300) }));
}
`;

function install() {
  const key = Object.entries(VERSIONS).map(([name, version]) => `${name.replace(/[@/]/g, '')}-${version}`).join('_');
  const dir = join(ROOT, '.cache', 'clients', `sdks-${key}`);
  installOnce(dir, Object.entries(VERSIONS).map(([name, version]) => `${name}@${version}`), log, '{ "private": true, "type": "module" }\n');
  writeFileSync(join(dir, 'runner.mjs'), RUNNER);
  return dir;
}

/** `turnguard serve --mock` on a free loopback port; resolves with its base URL once it listens. */
function startGateway(statsFile) {
  const config = option('--config');
  const args = [join(ROOT, 'apps', 'gateway', 'dist', 'cli.js'), 'serve', '--mock', '--port', '0', '--stats-file', statsFile, ...(config ? ['--config', config] : [])];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const lines = [];
  return new Promise((resolve, reject) => {
    const onData = (chunk) => {
      lines.push(...String(chunk).split('\n'));
      const listening = lines.map((line) => /listening on (http:\/\/[^\s]+)/.exec(line)).find(Boolean);
      if (listening) resolve({ child, url: listening[1].replace(/\/$/, ''), lines });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`the gateway exited ${code}: ${lines.join('\n')}`)));
  });
}

const dir = install();
log('building the gateway (turbo cache makes a re-run cheap)');
execFileSync('npx', ['-y', 'pnpm@12.4.2', 'turbo', 'run', 'build', '--filter=@turnguard/gateway...', '--output-logs=errors-only'], {
  cwd: ROOT,
  stdio: ['ignore', 'ignore', 'inherit'],
  env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1' },
});
const statsFile = join(mkdtempSync(join(tmpdir(), 'turnguard-sdk-clients-')), 'stats.json');
const gateway = await startGateway(statsFile);
const models = optionList('--model');
let failed = 0;
try {
  for (const model of models.length > 0 ? models : ['mock-model', 'mock-cut-thinking']) {
    for (const [client, protocol] of CLIENTS) {
      const out = execFileSync(process.execPath, [join(dir, 'runner.mjs'), gateway.url, client, protocol, model], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
      const result = JSON.parse(out.trim().split('\n').at(-1));
      const ok = result.error === undefined && result.text.length > 0;
      if (!ok) failed += 1;
      console.log(`${ok ? 'PASS' : 'FAIL'} ${client} ${protocol} ${model}: ${JSON.stringify(result)}`);
    }
  }
} finally {
  gateway.child.kill();
}
console.log(`${CLIENTS.length * Math.max(models.length, 2) - failed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
