import { PROTOCOLS, TurnError, resolveStreamRecoveryConfig, type Protocol, type StreamRecoveryOptions } from '@turnguard/core';
import { DEFAULT_INBOUND_SETTINGS, INBOUND_KEYS, resolveInboundSettings, type InboundSettings } from './inbound-config.js';
import { EMPTY_ROUTING_SETTINGS, parseRoutingSettings, type RoutingSettings } from '../routing/routing-schema.js';
import { DEFAULT_FAILOVER_SETTINGS, FAILOVER_KEYS, RETRY_KEYS, resolveFailoverSettings, type FailoverSettings, type GatewayRetrySettings } from './failover-config.js';

export type { GatewayRetrySettings } from './failover-config.js';

/** Where each route forwards to. Chat/Responses bases include `/v1`; the Messages base does not (as each SDK's `baseURL`). */
export type UpstreamUrls = Record<Protocol, string>;

/**
 * The validated settings of one gateway. Provider credentials are
 * deliberately not part of it (R8.5); the gateway's own token is (R8.9).
 */
export interface GatewayConfig extends InboundSettings, FailoverSettings {
  host: string;
  /** 0 = any free port. */
  port: number;
  upstreams: UpstreamUrls;
  maxBodyBytes: number;
  /** `stats.json` to record into (R6); undefined = no stats. */
  statsPath: string | undefined;
  streamRecovery: false | StreamRecoveryOptions;
  retry: GatewayRetrySettings;
  /** Serve the embedded testkit upstream on loopback and forward every route to it. */
  mock: boolean;
  /** Named upstreams, model routes and fallback chains (R11.1); `upstreams` above stay the simple form. */
  routing: RoutingSettings;
  /** Directory for one redacted JSON file per upstream 400 (R1.10); undefined = no dumps. */
  debugDumps: string | undefined;
}

/** A config as given by a file, the environment or flags: every key optional. */
export interface GatewayConfigInput extends Partial<Omit<InboundSettings, 'authToken'>> {
  /** R11.4: `false`, or limits laid over decision 0400's defaults (each `false` or milliseconds). */
  timeLimits?: false | FailoverSettings['timeLimits'];
  /** R11.5: `false`, or thresholds laid over Envoy-like defaults. */
  circuitBreaker?: false | Partial<Exclude<FailoverSettings['circuitBreaker'], false>>;
  /** R11.6: `prefill` turns mid-answer continuation on. */
  continuation?: FailoverSettings['continuation'];
  authToken?: string | null;
  host?: string;
  port?: number;
  upstreams?: Partial<UpstreamUrls>;
  maxBodyBytes?: number;
  statsPath?: string | null;
  streamRecovery?: false | StreamRecoveryOptions;
  retry?: GatewayRetrySettings;
  mock?: boolean;
  /** Validated by `parseRoutingSettings` (zod); only the config file sets it. */
  routing?: unknown;
  debugDumps?: string | null;
}

export const DEFAULT_GATEWAY_CONFIG: GatewayConfig = {
  host: '127.0.0.1',
  port: 8787,
  upstreams: {
    chat: 'https://api.openai.com/v1',
    responses: 'https://api.openai.com/v1',
    messages: 'https://api.anthropic.com',
  },
  maxBodyBytes: 32 * 1024 * 1024,
  statsPath: undefined,
  streamRecovery: {},
  retry: {},
  mock: false,
  routing: EMPTY_ROUTING_SETTINGS,
  debugDumps: undefined,
  ...DEFAULT_INBOUND_SETTINGS,
  ...DEFAULT_FAILOVER_SETTINGS,
};

const TOP_LEVEL_KEYS = new Set(['host', 'port', 'upstreams', 'maxBodyBytes', 'statsPath', 'streamRecovery', 'retry', 'mock', 'routing', 'debugDumps', ...INBOUND_KEYS, ...FAILOVER_KEYS]);
const UPSTREAM_KEYS = new Set<string>(PROTOCOLS);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function dropUndefined(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined));
}

export function rejectConfig(message: string, option: string): never {
  throw new TurnError({ kind: 'invalid_request', code: 'GATEWAY_INVALID_CONFIG', retryable: false, message, details: { option } });
}

/**
 * Every `streamRecovery` option core accepts (R4.8). `satisfies` makes the
 * list exhaustive: an option added to core's type fails this file's
 * typecheck until it is listed, so the message below never goes stale.
 */
const STREAM_RECOVERY_KEYS = new Set(
  Object.keys({
    enabled: true,
    recoveriesPerTurn: true,
    turnTimeoutMs: true,
    recoverySegmentTimeoutMs: true,
    recoveryMaxOutputTokens: true,
    checkpointMaxChars: true,
    contextWindowTokens: true,
    modelMaxOutputTokens: true,
  } satisfies Record<keyof StreamRecoveryOptions, true>),
);

/** An unknown key is refused with the keys that exist, so the fix is on the same line. */
function checkKeys(value: unknown, known: ReadonlySet<string>, where: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) rejectConfig(`${where} must be an object.`, where);
  for (const key of Object.keys(value)) {
    if (known.has(key)) continue;
    const name = where === 'config' ? key : `${where}.${key}`;
    rejectConfig(`Unknown ${where === 'config' ? 'config key' : 'option'} "${name}". Known: ${[...known].join(', ')}.`, name);
  }
  return value as Record<string, unknown>;
}

function readInteger(value: unknown, option: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    rejectConfig(`${option} must be an integer from ${min} to ${max}, got ${JSON.stringify(value)}.`, option);
  }
  return value;
}

function readUrl(value: unknown, option: string): string {
  if (typeof value !== 'string') rejectConfig(`${option} must be an http(s) URL.`, option);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    rejectConfig(`${option} is not a valid URL: ${JSON.stringify(value)}.`, option);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') rejectConfig(`${option} must use http or https, got ${url.protocol}`, option);
  if (url.username !== '' || url.password !== '') rejectConfig(`${option} must not carry credentials; use the environment.`, option);
  return value.replace(/\/+$/, '');
}

/**
 * Layers inputs (later wins, key by key) over the defaults and validates the
 * result. Unknown keys, bad URLs and stream-recovery limits above their
 * defaults throw a `TurnError` (`GATEWAY_INVALID_CONFIG`, or core's
 * `INVALID_STREAM_RECOVERY_OPTION` for R4.8) with a message naming the key.
 */
export function resolveGatewayConfig(...layers: GatewayConfigInput[]): GatewayConfig {
  const merged: Record<string, unknown> = {};
  for (const layer of layers) {
    const checked = checkKeys(layer, TOP_LEVEL_KEYS, 'config');
    for (const [key, value] of Object.entries(checked)) {
      if (value === undefined) continue;
      const previous = merged[key];
      // Nested groups merge key by key; an unset key in a later layer keeps the earlier value.
      merged[key] = (key === 'upstreams' || key === 'retry' || key === 'timeLimits') && isPlainObject(value) ? { ...(isPlainObject(previous) ? previous : {}), ...dropUndefined(value) } : value;
    }
  }
  const config: GatewayConfig = { ...DEFAULT_GATEWAY_CONFIG, upstreams: { ...DEFAULT_GATEWAY_CONFIG.upstreams } };
  if (merged.host !== undefined) {
    if (typeof merged.host !== 'string' || merged.host === '') rejectConfig('host must be a non-empty string.', 'host');
    config.host = merged.host;
  }
  if (merged.port !== undefined) config.port = readInteger(merged.port, 'port', 0, 65_535);
  if (merged.upstreams !== undefined) {
    const upstreams = checkKeys(merged.upstreams, UPSTREAM_KEYS, 'upstreams');
    for (const [protocol, url] of Object.entries(upstreams)) {
      if (url !== undefined) config.upstreams[protocol as Protocol] = readUrl(url, `upstreams.${protocol}`);
    }
  }
  if (merged.maxBodyBytes !== undefined) config.maxBodyBytes = readInteger(merged.maxBodyBytes, 'maxBodyBytes', 1, 1024 ** 3);
  if (merged.statsPath !== undefined && merged.statsPath !== null) {
    if (typeof merged.statsPath !== 'string' || merged.statsPath === '') rejectConfig('statsPath must be a non-empty string.', 'statsPath');
    config.statsPath = merged.statsPath;
  }
  if (merged.streamRecovery !== undefined) {
    if (merged.streamRecovery !== false) checkKeys(merged.streamRecovery, STREAM_RECOVERY_KEYS, 'streamRecovery');
    // R4.8: core validates the values (limits above the defaults) and its TurnError is surfaced as is.
    resolveStreamRecoveryConfig(merged.streamRecovery as false | StreamRecoveryOptions);
    config.streamRecovery = merged.streamRecovery as false | StreamRecoveryOptions;
  }
  if (merged.retry !== undefined) {
    const retry = checkKeys(merged.retry, RETRY_KEYS, 'retry');
    const settings: GatewayRetrySettings = {};
    if (retry.maxRetries !== undefined) settings.maxRetries = readInteger(retry.maxRetries, 'retry.maxRetries', 0, 100);
    if (retry.initialDelayMs !== undefined) settings.initialDelayMs = readInteger(retry.initialDelayMs, 'retry.initialDelayMs', 0, 600_000);
    if (retry.maxDelayMs !== undefined) settings.maxDelayMs = readInteger(retry.maxDelayMs, 'retry.maxDelayMs', 0, 3_600_000);
    if (retry.failOverAfter !== undefined) settings.failOverAfter = readInteger(retry.failOverAfter, 'retry.failOverAfter', 1, 100);
    if (retry.retryWindowMs !== undefined) settings.retryWindowMs = readInteger(retry.retryWindowMs, 'retry.retryWindowMs', 0, 86_400_000);
    if (retry.maxServerWaitMs !== undefined) settings.maxServerWaitMs = readInteger(retry.maxServerWaitMs, 'retry.maxServerWaitMs', 0, 86_400_000);
    if (retry.burstAttempts !== undefined) settings.burstAttempts = readInteger(retry.burstAttempts, 'retry.burstAttempts', 1, 100);
    if (retry.burstWindowMs !== undefined) settings.burstWindowMs = readInteger(retry.burstWindowMs, 'retry.burstWindowMs', 0, 600_000);
    config.retry = settings;
  }
  if (merged.debugDumps !== undefined && merged.debugDumps !== null) {
    if (typeof merged.debugDumps !== 'string' || merged.debugDumps === '') rejectConfig('debugDumps must be a directory path.', 'debugDumps');
    config.debugDumps = merged.debugDumps;
  }
  if (merged.mock !== undefined) {
    if (typeof merged.mock !== 'boolean') rejectConfig('mock must be true or false.', 'mock');
    config.mock = merged.mock;
  }
  // R11.1: a later layer's routing section replaces an earlier one whole (only the file sets it today).
  if (merged.routing !== undefined) config.routing = parseRoutingSettings(merged.routing);
  return { ...config, ...resolveInboundSettings(merged, config.host), ...resolveFailoverSettings(merged) };
}
