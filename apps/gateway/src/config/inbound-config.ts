import { TurnError } from '@turnguard/core';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export type LogFormat = 'json' | 'pretty';

/**
 * The inbound side's settings (R8.9, R8.11): who may talk to the gateway,
 * how long a slow client may hold a connection, and the access log.
 */
export interface InboundSettings {
  /** The gateway's own token (decision 0240); undefined = none (loopback only). */
  authToken: string | undefined;
  /** `Host` names accepted besides the loopback names and the listen host (DNS rebinding). */
  allowedHosts: string[];
  /** Browser origins allowed to call the gateway (CORS is opt-in). */
  corsOrigins: string[];
  /** The loud override: listen off loopback without a token. */
  dangerouslyAllowUnauthenticatedNetwork: boolean;
  /** Time to receive a request's headers (above the keep-alive time-out, decision 0241). */
  headersTimeoutMs: number;
  /** Time to receive a whole request, headers and body. */
  requestTimeoutMs: number;
  /** Longest gap between two reads of a request body (nginx's `client_body_timeout`). */
  bodyIdleTimeoutMs: number;
  /** How long an idle keep-alive connection stays open (longer than common client pools). */
  keepAliveTimeoutMs: number;
  logLevel: LogLevel;
  logFormat: LogFormat;
}

export const DEFAULT_INBOUND_SETTINGS: InboundSettings = {
  authToken: undefined,
  allowedHosts: [],
  corsOrigins: [],
  dangerouslyAllowUnauthenticatedNetwork: false,
  headersTimeoutMs: 66_000,
  requestTimeoutMs: 300_000,
  bodyIdleTimeoutMs: 60_000,
  keepAliveTimeoutMs: 65_000,
  logLevel: 'info',
  logFormat: 'json',
};

export const INBOUND_KEYS: readonly string[] = Object.keys(DEFAULT_INBOUND_SETTINGS);

/** Shorter tokens are guessable; 16 characters is what `openssl rand -hex 8` gives. */
const MIN_TOKEN_LENGTH = 16;

function reject(message: string, option: string): never {
  throw new TurnError({ kind: 'invalid_request', code: 'GATEWAY_INVALID_CONFIG', retryable: false, message, details: { option } });
}

function readStringList(value: unknown, option: string): string[] {
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string' || item.trim() === '')) {
    reject(`${option} must be a list of non-empty strings.`, option);
  }
  return value.map((item: string) => item.trim());
}

function readOrigins(value: unknown): string[] {
  return readStringList(value, 'corsOrigins').map((origin) => {
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      return reject(`corsOrigins entry ${JSON.stringify(origin)} is not an origin like https://app.example.`, 'corsOrigins');
    }
    // Browsers send the serialized origin (scheme://host[:port]); compare like with like.
    if (url.origin === 'null' || url.origin !== origin.replace(/\/+$/, '')) reject(`corsOrigins entry ${JSON.stringify(origin)} must be a bare origin (scheme://host[:port]).`, 'corsOrigins');
    return url.origin;
  });
}

function readTimeout(value: unknown, option: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 3_600_000) {
    reject(`${option} must be an integer from 1 to 3600000 (ms), got ${JSON.stringify(value)}.`, option);
  }
  return value;
}

function readBoolean(value: unknown, option: string): boolean {
  if (typeof value !== 'boolean') reject(`${option} must be true or false.`, option);
  return value;
}

function readToken(value: unknown): string | undefined {
  if (value === null || value === '') return undefined;
  if (typeof value !== 'string' || value.trim().length < MIN_TOKEN_LENGTH || /\s/.test(value.trim())) {
    // The value itself is never echoed: it is a credential.
    reject(`authToken must be a string of at least ${MIN_TOKEN_LENGTH} characters without spaces.`, 'authToken');
  }
  return value.trim();
}

function readLogLevel(value: unknown): LogLevel {
  if (!LOG_LEVELS.includes(value as LogLevel)) reject(`logLevel must be one of ${LOG_LEVELS.join(', ')}, got ${JSON.stringify(value)}.`, 'logLevel');
  return value as LogLevel;
}

function readLogFormat(value: unknown): LogFormat {
  if (value !== 'json' && value !== 'pretty') reject(`logFormat must be "json" or "pretty", got ${JSON.stringify(value)}.`, 'logFormat');
  return value;
}

/** Listen addresses that only this machine can reach. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare);
}

/** Validates the inbound keys of a merged config layer; unset keys keep their defaults. */
export function resolveInboundSettings(merged: Record<string, unknown>, host: string): InboundSettings {
  const settings: InboundSettings = { ...DEFAULT_INBOUND_SETTINGS };
  if (merged.authToken !== undefined) settings.authToken = readToken(merged.authToken);
  if (merged.allowedHosts !== undefined) settings.allowedHosts = readStringList(merged.allowedHosts, 'allowedHosts').map((name) => name.toLowerCase());
  if (merged.corsOrigins !== undefined) settings.corsOrigins = readOrigins(merged.corsOrigins);
  if (merged.dangerouslyAllowUnauthenticatedNetwork !== undefined) {
    settings.dangerouslyAllowUnauthenticatedNetwork = readBoolean(merged.dangerouslyAllowUnauthenticatedNetwork, 'dangerouslyAllowUnauthenticatedNetwork');
  }
  for (const key of ['headersTimeoutMs', 'requestTimeoutMs', 'bodyIdleTimeoutMs', 'keepAliveTimeoutMs'] as const) {
    if (merged[key] !== undefined) settings[key] = readTimeout(merged[key], key);
  }
  if (settings.headersTimeoutMs > settings.requestTimeoutMs) {
    // node:http refuses it too: the whole request cannot take less time than its headers.
    reject(`headersTimeoutMs (${settings.headersTimeoutMs}) must not exceed requestTimeoutMs (${settings.requestTimeoutMs}).`, 'headersTimeoutMs');
  }
  if (merged.logLevel !== undefined) settings.logLevel = readLogLevel(merged.logLevel);
  if (merged.logFormat !== undefined) settings.logFormat = readLogFormat(merged.logFormat);
  if (!isLoopbackHost(host) && settings.authToken === undefined && !settings.dangerouslyAllowUnauthenticatedNetwork) {
    reject(
      `Refusing to listen on ${host} without a gateway token: anyone who can reach it could spend your provider keys. ` +
        'Set TURNGUARD_AUTH_TOKEN (or authToken / --auth-token), or pass --dangerously-allow-unauthenticated-network.',
      'authToken',
    );
  }
  return settings;
}
