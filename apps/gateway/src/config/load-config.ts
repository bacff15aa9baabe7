import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import type { StreamRecoveryOptions } from '@turnguard/core';
import { rejectConfig, resolveGatewayConfig, type GatewayConfig, type GatewayConfigInput } from './gateway-config.js';

export const SERVE_FLAGS = {
  config: { type: 'string' },
  host: { type: 'string' },
  port: { type: 'string' },
  'upstream-chat': { type: 'string' },
  'upstream-messages': { type: 'string' },
  'upstream-responses': { type: 'string' },
  'max-body-bytes': { type: 'string' },
  'stats-file': { type: 'string' },
  'no-stats': { type: 'boolean' },
  'stream-recovery': { type: 'string' },
  'max-retries': { type: 'string' },
  'time-limits': { type: 'string' },
  continuation: { type: 'string' },
  mock: { type: 'boolean' },
  'debug-dumps': { type: 'string' },
  'auth-token': { type: 'string' },
  'allowed-host': { type: 'string', multiple: true },
  'cors-origin': { type: 'string', multiple: true },
  'dangerously-allow-unauthenticated-network': { type: 'boolean' },
  'headers-timeout-ms': { type: 'string' },
  'request-timeout-ms': { type: 'string' },
  'body-idle-timeout-ms': { type: 'string' },
  'keep-alive-timeout-ms': { type: 'string' },
  'log-level': { type: 'string' },
  'log-format': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export interface LoadConfigSources {
  argv: readonly string[];
  env: Record<string, string | undefined>;
  /** Where `stats.json` goes when neither a flag, the environment nor the file says (the stats CLI's default). */
  defaultStatsPath: string | undefined;
  /** The same with `--mock`: mock traffic must not mix into the real stats (default: `defaultStatsPath`). */
  defaultMockStatsPath?: string | undefined;
  readTextFile?: (path: string) => Promise<string>;
}

function toInteger(text: string | undefined, option: string): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text.trim())) rejectConfig(`${option} must be a whole number, got ${JSON.stringify(text)}.`, option);
  return Number(text);
}

/** `off`/`false` → recovery off (R4.8); otherwise a JSON object of lowered limits. */
function toStreamRecovery(text: string | undefined, option: string): false | StreamRecoveryOptions | undefined {
  if (text === undefined) return undefined;
  if (text === 'off' || text === 'false') return false;
  if (text === 'on' || text === 'true') return {};
  try {
    return JSON.parse(text) as StreamRecoveryOptions;
  } catch {
    return rejectConfig(`${option} must be "off", "on" or a JSON object of limits.`, option);
  }
}

/** `off`/`false` → every upstream time limit off (R11.4); otherwise a JSON object of limits. */
function toTimeLimits(text: string | undefined, option: string): GatewayConfigInput['timeLimits'] {
  if (text === undefined) return undefined;
  if (text === 'off' || text === 'false') return false;
  try {
    return JSON.parse(text) as GatewayConfigInput['timeLimits'];
  } catch {
    return rejectConfig(`${option} must be "off" or a JSON object of limits in milliseconds.`, option);
  }
}

function toBoolean(text: string | undefined, option: string): boolean | undefined {
  if (text === undefined) return undefined;
  if (text === '1' || text === 'true') return true;
  if (text === '0' || text === 'false' || text === '') return false;
  return rejectConfig(`${option} must be 1/true or 0/false.`, option);
}

/** A comma-separated list (`TURNGUARD_ALLOWED_HOSTS=a.example,b.example`). */
function toList(text: string | undefined): string[] | undefined {
  return text === undefined ? undefined : text.split(',').map((item) => item.trim()).filter((item) => item !== '');
}

/** `TURNGUARD_*` variables. Credentials are read elsewhere, per request, and never enter the config (R8.5). */
export function readEnvironmentLayer(env: Record<string, string | undefined>): GatewayConfigInput {
  return {
    host: env.TURNGUARD_HOST,
    port: toInteger(env.TURNGUARD_PORT, 'TURNGUARD_PORT'),
    upstreams: {
      chat: env.TURNGUARD_UPSTREAM_CHAT,
      messages: env.TURNGUARD_UPSTREAM_MESSAGES,
      responses: env.TURNGUARD_UPSTREAM_RESPONSES,
    },
    maxBodyBytes: toInteger(env.TURNGUARD_MAX_BODY_BYTES, 'TURNGUARD_MAX_BODY_BYTES'),
    statsPath: env.TURNGUARD_STATS_FILE,
    streamRecovery: toStreamRecovery(env.TURNGUARD_STREAM_RECOVERY, 'TURNGUARD_STREAM_RECOVERY'),
    retry: { maxRetries: toInteger(env.TURNGUARD_MAX_RETRIES, 'TURNGUARD_MAX_RETRIES') },
    timeLimits: toTimeLimits(env.TURNGUARD_TIME_LIMITS, 'TURNGUARD_TIME_LIMITS'),
    continuation: env.TURNGUARD_CONTINUATION as GatewayConfigInput['continuation'],
    mock: toBoolean(env.TURNGUARD_MOCK, 'TURNGUARD_MOCK'),
    debugDumps: env.TURNGUARD_DEBUG_DUMPS,
    authToken: env.TURNGUARD_AUTH_TOKEN,
    allowedHosts: toList(env.TURNGUARD_ALLOWED_HOSTS),
    corsOrigins: toList(env.TURNGUARD_CORS_ORIGINS),
    headersTimeoutMs: toInteger(env.TURNGUARD_HEADERS_TIMEOUT_MS, 'TURNGUARD_HEADERS_TIMEOUT_MS'),
    requestTimeoutMs: toInteger(env.TURNGUARD_REQUEST_TIMEOUT_MS, 'TURNGUARD_REQUEST_TIMEOUT_MS'),
    bodyIdleTimeoutMs: toInteger(env.TURNGUARD_BODY_IDLE_TIMEOUT_MS, 'TURNGUARD_BODY_IDLE_TIMEOUT_MS'),
    keepAliveTimeoutMs: toInteger(env.TURNGUARD_KEEP_ALIVE_TIMEOUT_MS, 'TURNGUARD_KEEP_ALIVE_TIMEOUT_MS'),
    logLevel: env.TURNGUARD_LOG_LEVEL as GatewayConfigInput['logLevel'],
    logFormat: env.TURNGUARD_LOG_FORMAT as GatewayConfigInput['logFormat'],
  };
}

type FlagValue<F> = F extends { type: 'boolean' } ? boolean : F extends { multiple: true } ? string[] : string;
type ServeFlagValues = { [K in keyof typeof SERVE_FLAGS]?: FlagValue<(typeof SERVE_FLAGS)[K]> };

export function parseServeFlags(argv: readonly string[]): ServeFlagValues {
  try {
    return parseArgs({ args: [...argv], options: SERVE_FLAGS, allowPositionals: false, strict: true }).values as ServeFlagValues;
  } catch (error) {
    // node:util names the flag; for an unknown one the flags that exist follow, as for an unknown config key.
    const message = (error as Error).message.split('. To specify a positional')[0]!.replace(/\.$/, '');
    const known = Object.keys(SERVE_FLAGS).map((flag) => `--${flag}`).join(', ');
    return rejectConfig(message.startsWith('Unknown option') ? `${message}. Known: ${known}.` : `${message}.`, 'argv');
  }
}

function readFlagLayer(flags: ServeFlagValues): GatewayConfigInput {
  return {
    host: flags.host,
    port: toInteger(flags.port, '--port'),
    upstreams: { chat: flags['upstream-chat'], messages: flags['upstream-messages'], responses: flags['upstream-responses'] },
    maxBodyBytes: toInteger(flags['max-body-bytes'], '--max-body-bytes'),
    statsPath: flags['no-stats'] === true ? null : flags['stats-file'],
    streamRecovery: toStreamRecovery(flags['stream-recovery'], '--stream-recovery'),
    retry: { maxRetries: toInteger(flags['max-retries'], '--max-retries') },
    timeLimits: toTimeLimits(flags['time-limits'], '--time-limits'),
    continuation: flags.continuation as GatewayConfigInput['continuation'],
    mock: flags.mock,
    debugDumps: flags['debug-dumps'],
    authToken: flags['auth-token'],
    allowedHosts: flags['allowed-host'],
    corsOrigins: flags['cors-origin'],
    dangerouslyAllowUnauthenticatedNetwork: flags['dangerously-allow-unauthenticated-network'],
    headersTimeoutMs: toInteger(flags['headers-timeout-ms'], '--headers-timeout-ms'),
    requestTimeoutMs: toInteger(flags['request-timeout-ms'], '--request-timeout-ms'),
    bodyIdleTimeoutMs: toInteger(flags['body-idle-timeout-ms'], '--body-idle-timeout-ms'),
    keepAliveTimeoutMs: toInteger(flags['keep-alive-timeout-ms'], '--keep-alive-timeout-ms'),
    logLevel: flags['log-level'] as GatewayConfigInput['logLevel'],
    logFormat: flags['log-format'] as GatewayConfigInput['logFormat'],
  };
}

async function readFileLayer(path: string, read: (path: string) => Promise<string>): Promise<GatewayConfigInput> {
  let text: string;
  try {
    text = await read(path);
  } catch (error) {
    return rejectConfig(`Cannot read the config file ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'}).`, 'config');
  }
  try {
    return JSON.parse(text) as GatewayConfigInput;
  } catch {
    return rejectConfig(`The config file ${path} is not valid JSON.`, 'config');
  }
}

/** Defaults < config file (`--config` or `TURNGUARD_CONFIG`) < environment < flags. */
export async function loadGatewayConfig(sources: LoadConfigSources): Promise<{ config: GatewayConfig; help: boolean }> {
  const flags = parseServeFlags(sources.argv);
  const filePath = flags.config ?? sources.env.TURNGUARD_CONFIG;
  const fileLayer = filePath === undefined ? {} : await readFileLayer(filePath, sources.readTextFile ?? ((path) => readFile(path, 'utf8')));
  const layers = [fileLayer, readEnvironmentLayer(sources.env), readFlagLayer(flags)];
  // The default stats file depends on --mock, which any layer may set: resolved once to learn it.
  const { mock } = resolveGatewayConfig(...layers);
  const defaultStatsPath = mock ? (sources.defaultMockStatsPath ?? sources.defaultStatsPath) : sources.defaultStatsPath;
  return { config: resolveGatewayConfig({ statsPath: defaultStatsPath }, ...layers), help: flags.help === true };
}
