#!/usr/bin/env node
// Real clients, offline: Claude Code (Messages), Codex CLI (Responses), Qwen Code and opencode
// (Chat Completions), and pi on each of the three, against `turnguard serve` and a scripted loopback upstream, inside a
// network namespace with loopback only.
// Usage: node scripts/clients/run-clients.mjs [--only claude|codex|qwen|opencode|pi-chat|pi-messages|pi-responses] [--scenario name] [--shapes] [--frames] [--gateway-log] [--direct]
// --direct points the clients straight at the scripted upstream (no gateway): the control run.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { claudeRun, codexRun } from './clients.mjs';
import { whatPersonSaw } from './display.mjs';
import { collapse } from './frame-log.mjs';
import { installExtraClients, opencodeRun, qwenRun } from './extra-clients.mjs';
import { installPi, piRun } from './pi-client.mjs';
import { startGateway } from './gateway-process.mjs';
import { installClients } from './install-clients.mjs';
import { judge, judgeRequests } from './judge.mjs';
import { CONTINUER_MODEL, DIRECT_SCENARIO_NAMES, FALLBACK_MODEL, SCENARIO_NAMES } from './replies.mjs';
import { summariseShapes } from './request-shape.mjs';
import { runClient } from './run-client.mjs';
import { startScriptedUpstream } from './scripted-upstream.mjs';
import { startTap } from './tap-proxy.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const INSIDE_FLAG = '--inside-netns';
const CACHE = join(ROOT, '.cache', 'clients');
const RUNS_DIR = join(CACHE, 'runs');
const OUTPUT_DIR = join(CACHE, 'last-run');
const TIMEOUT_SECONDS = 120;
const PROMPTS = {
  plain: 'Say the plain answer.',
  tool: 'Run `echo turnguard-tool-ok` with your shell tool, then tell me what it printed.',
  'cut-thinking': 'Think it over, then pick option A or B.',
  'failed-recovery': 'Think it over, then pick option A or B.',
  'spliced-reference': 'Think it over, then pick option A or B.',
  'fallback-503': 'Say the answer.',
  'cut-continued': 'Say the whole sentence.',
  'fallback-other-family': 'Say the answer.',
};
/** Each client run: its label, how it is pointed at the gateway, and which installed binary it is (pi runs once per protocol). */
const CLIENTS = {
  claude: { label: 'claude-code', build: claudeRun },
  codex: { label: 'codex', build: codexRun },
  qwen: { label: 'qwen-code', build: qwenRun },
  opencode: { label: 'opencode', build: opencodeRun },
  'pi-chat': { label: 'pi (chat)', build: piRun('chat'), binary: 'pi' },
  'pi-messages': { label: 'pi (messages)', build: piRun('messages'), binary: 'pi' },
  'pi-responses': { label: 'pi (responses)', build: piRun('responses'), binary: 'pi' },
};

/**
 * Runs that cannot pass by design, and why; printed as SKIP, never counted as passed. Codex
 * declares OpenAI's `web_search` and a `namespace` tool, which another family cannot run: the
 * gateway skips the Messages entry rather than send it an approximation (decision 0403), and
 * codex then reconnects for minutes.
 */
const SKIPS = {
  'fallback-other-family': { codex: 'codex declares web_search and a namespace tool: the Messages entry is skipped, never approximated (decision 0403)' },
};

const log = (line) => process.stderr.write(`[clients] ${line}\n`);

function option(name) {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

/** Outside the namespace: everything that needs the registry, then re-run inside `unshare -n`. */
function prepareAndEnterNamespace() {
  installClients(ROOT, log);
  installExtraClients(ROOT, log);
  installPi(ROOT, log);
  log('building the gateway (turbo cache makes a re-run cheap)');
  execFileSync('npx', ['-y', 'pnpm@12.4.2', 'turbo', 'run', 'build', '--filter=@turnguard/gateway...', '--output-logs=errors-only'],
    { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1' } });
  const inner = spawnSync('unshare', ['-n', process.execPath, fileURLToPath(import.meta.url), INSIDE_FLAG, ...process.argv.slice(2)], { stdio: 'inherit' });
  if (inner.error || inner.status === null) {
    log(`could not enter a network namespace (unshare -n needs root or user namespaces): ${inner.error?.message ?? inner.signal}`);
    process.exit(2);
  }
  process.exit(inner.status);
}

function bringUpLoopback() {
  execFileSync('ip', ['link', 'set', 'lo', 'up']);
  const links = execFileSync('ip', ['-o', 'link', 'show'], { encoding: 'utf8' }).trim().split('\n').map((line) => line.split(':')[1].trim());
  if (links.join(',') !== 'lo') throw new Error(`expected only lo in the namespace, found ${links.join(', ')}`);
  log('network namespace: only lo is up; nothing can leave this machine');
}

function countRoles(shapes) {
  const count = (role) => shapes.filter((shape) => shape.role === role).length;
  const failOver = count('fallback') + count('continuation') > 0 ? `, ${count('fallback')} fallback, ${count('continuation')} continuation` : '';
  return `upstream saw ${count('main')} main, ${count('recovery')} recovery${failOver}, ${count('side')} side, ${shapes.filter((s) => !s.role).length} other`;
}

async function runScenario(clientKey, scenario, context) {
  const client = CLIENTS[clientKey];
  context.upstream.setScenario(scenario);
  context.clientShapes.length = 0;
  const run = await runClient(client.build(context.binaries[client.binary ?? clientKey], context.tap.url, PROMPTS[scenario], RUNS_DIR), TIMEOUT_SECONDS);
  writeFileSync(join(OUTPUT_DIR, `${clientKey}-${scenario}.txt`), run.output);
  const upstreamShapes = context.upstream.takeShapes();
  const failure = judge(scenario, clientKey, run) ?? judgeRequests(scenario, upstreamShapes);
  console.log(`${failure ? 'FAIL' : 'PASS'} ${client.label} ${scenario}: exit ${run.exitCode}, ${run.seconds.toFixed(1)} s, ${countRoles(upstreamShapes)}` +
    `${failure ? ` — ${failure}` : ''}\n     saw: ${whatPersonSaw(run.output) || '(nothing)'}`);
  if (process.argv.includes('--frames')) printFrames(context.clientShapes);
  context.shapes[clientKey].client.push(...context.clientShapes);
  context.shapes[clientKey].upstream.push(...upstreamShapes);
  return !failure;
}

function printFrames(clientShapes) {
  for (const { method, path, answer } of clientShapes) {
    if (!answer) continue;
    const frames = answer.frames.labels.length ? `: ${collapse(answer.frames.labels)}` : '';
    console.log(`       ${method} ${path} → ${answer.status}${frames}`);
  }
}

function printShapes(shapes, direct) {
  for (const [clientKey, seen] of Object.entries(shapes)) {
    if (seen.client.length === 0) continue;
    console.log(`\n${CLIENTS[clientKey].label} sent (names only, never values):`);
    console.log(summariseShapes(seen.client).join('\n'));
    console.log(`${CLIENTS[clientKey].label}: what reached the upstream${direct ? '' : ' through the gateway'}:`);
    console.log(summariseShapes(seen.upstream).join('\n'));
  }
}

/**
 * The gateway's config file (R11): every model falls back to the harness's fallback model, then
 * to a continuer on a Messages upstream that takes a prefill (for codex, another family), and
 * mid-answer continuation is on. The simple form's flags still point every route at the upstream.
 */
function writeGatewayConfig(upstreamPort) {
  const path = join(CACHE, 'gateway-config.json');
  const config = {
    continuation: 'prefill',
    // One gateway serves every scenario: cuts and 503s of earlier scenarios would open the primary's circuit
    // (R11.5) and send later scenarios to the fallback. Circuits are the fault catalogue's to test.
    circuitBreaker: false,
    routing: {
      upstreams: { 'scripted-messages': { protocol: 'messages', baseUrl: `http://127.0.0.1:${upstreamPort}`, apiKey: 'client', prefill: 'messages' } },
      models: { [CONTINUER_MODEL]: { upstream: 'scripted-messages' } },
      fallbacks: { '*': [FALLBACK_MODEL, CONTINUER_MODEL] },
    },
  };
  writeFileSync(path, `${JSON.stringify(config, null, 2)}\n`);
  return path;
}

async function runInsideNamespace() {
  bringUpLoopback();
  for (const dir of [RUNS_DIR, OUTPUT_DIR]) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
  }
  const binaries = { ...installClients(ROOT, () => {}), ...installExtraClients(ROOT, () => {}), pi: installPi(ROOT, () => {}) };
  const upstream = await startScriptedUpstream();
  const gateway = await startGateway(ROOT, upstream.port, writeGatewayConfig(upstream.port));
  const clientShapes = [];
  const direct = process.argv.includes('--direct');
  if (direct) log('--direct: clients talk to the scripted upstream itself, no gateway');
  const tap = await startTap(direct ? upstream.port : gateway.port, (shape) => clientShapes.push(shape));
  const context = { binaries, upstream, tap, clientShapes, shapes: Object.fromEntries(Object.keys(CLIENTS).map((key) => [key, { client: [], upstream: [] }])) };
  const clientKeys = option('--only') ? [option('--only')] : Object.keys(CLIENTS);
  const scenarios = option('--scenario') ? [option('--scenario')] : direct ? DIRECT_SCENARIO_NAMES : SCENARIO_NAMES;
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  try {
    for (const clientKey of clientKeys) {
      for (const scenario of scenarios) {
        const skip = SKIPS[scenario]?.[clientKey];
        if (skip !== undefined) {
          console.log(`SKIP ${CLIENTS[clientKey].label} ${scenario}: ${skip}`);
          skipped += 1;
        } else if (await runScenario(clientKey, scenario, context)) passed += 1;
        else failed += 1;
      }
    }
    if (process.argv.includes('--shapes')) printShapes(context.shapes, direct);
    if (process.argv.includes('--gateway-log')) console.log(`\ngateway output:\n${gateway.output()}`);
  } finally {
    await tap.close();
    await gateway.stop();
    await upstream.close();
  }
  console.log(`\n${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}`);
  process.exit(failed === 0 ? 0 : 1);
}

if (process.argv.includes(INSIDE_FLAG)) await runInsideNamespace();
else prepareAndEnterNamespace();
