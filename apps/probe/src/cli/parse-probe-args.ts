import { parseArgs } from 'node:util';
import { PROTOCOLS, TurnError, type Protocol } from '@turnguard/core';
import type { ProbeScenario } from '../probe-types.js';
import { DEFAULT_SCENARIO_NAME, findScenario, PROBE_SCENARIOS } from '../scenarios/scenario-catalog.js';

export type ProbeTarget =
  | { kind: 'mock' }
  | { kind: 'real'; baseUrl: string; model: string; apiKeyEnv: string; apiKey: string };

export interface ProbeConfig {
  help: boolean;
  scenarios: ProbeScenario[];
  protocols: Protocol[];
  target: ProbeTarget;
  outDir: string;
  /** `undefined` when `--no-stats`; otherwise the flag or `undefined` meaning the stats package's default path. */
  statsFile: string | undefined;
  recordStats: boolean;
}

export const DEFAULT_OUT_DIR = 'turnguard-probe-results';

/** Bad flags end as one clear `TurnError`; the CLI prints its message with the usage and exits 2. */
export function rejectArguments(message: string, flag?: string): never {
  throw new TurnError({ kind: 'invalid_request', code: 'PROBE_BAD_ARGUMENTS', retryable: false, message, details: flag === undefined ? undefined : { flag } });
}

function readProtocol(value: string | undefined): Protocol | undefined {
  if (value === undefined) return undefined;
  if ((PROTOCOLS as readonly string[]).includes(value)) return value as Protocol;
  return rejectArguments(`--protocol must be one of ${PROTOCOLS.join(', ')}, got "${value}".`, '--protocol');
}

function readBaseUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return rejectArguments(`--base-url is not a URL: "${value}".`, '--base-url');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') rejectArguments('--base-url must be an http(s) URL.', '--base-url');
  if (url.username !== '' || url.password !== '') rejectArguments('--base-url must not carry credentials; use --api-key-env.', '--base-url');
  return value.replace(/\/+$/, '');
}

function readScenario(name: string): ProbeScenario {
  const found = findScenario(name);
  if (found === undefined) {
    rejectArguments(`Unknown scenario "${name}". Known: ${PROBE_SCENARIOS.map((scenario) => scenario.name).join(', ')}.`, '--scenario');
  }
  return found;
}

function readRealTarget(values: { 'base-url'?: string; model?: string; 'api-key-env'?: string }, protocol: Protocol | undefined, env: Record<string, string | undefined>): ProbeTarget {
  if (protocol === undefined) rejectArguments('--base-url needs --protocol (chat, messages or responses).', '--protocol');
  if (values.model === undefined || values.model.trim() === '') rejectArguments('--base-url needs --model.', '--model');
  const baseUrl = readBaseUrl(values['base-url'] as string);
  const apiKeyEnv = values['api-key-env'] ?? (protocol === 'messages' ? 'ANTHROPIC_API_KEY' : 'OPENAI_API_KEY');
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(apiKeyEnv)) rejectArguments(`--api-key-env must name an environment variable, got "${apiKeyEnv}".`, '--api-key-env');
  const apiKey = env[apiKeyEnv];
  if (apiKey === undefined || apiKey.trim() === '') rejectArguments(`The environment variable ${apiKeyEnv} is not set (it should hold the upstream's API key).`, '--api-key-env');
  return { kind: 'real', baseUrl, model: values.model, apiKeyEnv, apiKey };
}

/** argv (without node and the script) → a validated configuration. Throws `PROBE_BAD_ARGUMENTS`. */
export function parseProbeArgs(argv: readonly string[], env: Record<string, string | undefined>): ProbeConfig {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: false,
      strict: true,
      options: {
        all: { type: 'boolean', default: false },
        scenario: { type: 'string' },
        protocol: { type: 'string' },
        'base-url': { type: 'string' },
        model: { type: 'string' },
        'api-key-env': { type: 'string' },
        out: { type: 'string' },
        'stats-file': { type: 'string' },
        'no-stats': { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (error) {
    // node:util's messages name the flag ("Unknown option '--x'", "Option '--scenario <value>' argument missing").
    return rejectArguments((error as Error).message);
  }
  const { values } = parsed;
  if (values.help) {
    return { help: true, scenarios: [], protocols: [], target: { kind: 'mock' }, outDir: DEFAULT_OUT_DIR, statsFile: undefined, recordStats: false };
  }
  const protocol = readProtocol(values.protocol);
  if (values.all && values.scenario !== undefined) rejectArguments('Give --all or --scenario, not both.', '--all');
  if (values['no-stats'] && values['stats-file'] !== undefined) rejectArguments('Give --stats-file or --no-stats, not both.', '--no-stats');
  if (values.out !== undefined && values.out.trim() === '') rejectArguments('--out needs a directory.', '--out');

  const isReal = values['base-url'] !== undefined;
  if (!isReal && (values.model !== undefined || values['api-key-env'] !== undefined)) {
    rejectArguments('--model and --api-key-env are for a real upstream; give --base-url too.', values.model !== undefined ? '--model' : '--api-key-env');
  }
  if (isReal && values.all) rejectArguments('--all runs on the embedded mock only; a real upstream cannot be made to fail on purpose.', '--all');

  const scenarios = values.all ? [...PROBE_SCENARIOS] : [readScenario(values.scenario ?? DEFAULT_SCENARIO_NAME)];
  const target = isReal ? readRealTarget(values, protocol, env) : ({ kind: 'mock' } as const);
  if (isReal) {
    const unsupported = scenarios.find((scenario) => !scenario.runsOnRealUpstream);
    if (unsupported !== undefined) {
      const supported = PROBE_SCENARIOS.filter((scenario) => scenario.runsOnRealUpstream).map((scenario) => scenario.name);
      rejectArguments(`Scenario "${unsupported.name}" needs injected faults and runs on the mock only; against a real upstream use: ${supported.join(', ')}.`, '--scenario');
    }
  }
  return {
    help: false,
    scenarios,
    protocols: protocol === undefined ? [...PROTOCOLS] : [protocol],
    target,
    outDir: values.out ?? DEFAULT_OUT_DIR,
    statsFile: values['stats-file'],
    recordStats: !values['no-stats'],
  };
}
