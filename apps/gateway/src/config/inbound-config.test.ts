import { errorOf } from '../testing/error-of.test-helper.js';
import { describe, expect, it } from 'vitest';
import { resolveGatewayConfig } from './gateway-config.js';
import { loadGatewayConfig } from './load-config.js';


const TOKEN = 'token-0123456789abcdef';

describe('R8.9 / R8.11 inbound config', () => {
  it('defaults: no token, no CORS, 65 s keep-alive under a 66 s headers time-out, info JSON logs', () => {
    expect(resolveGatewayConfig()).toMatchObject({
      authToken: undefined,
      allowedHosts: [],
      corsOrigins: [],
      keepAliveTimeoutMs: 65_000,
      headersTimeoutMs: 66_000,
      requestTimeoutMs: 300_000,
      logLevel: 'info',
      logFormat: 'json',
    });
  });

  it('accepts logLevel and logFormat (once refused as unknown keys) and rejects bad values by name', () => {
    expect(resolveGatewayConfig({ logLevel: 'debug', logFormat: 'pretty' })).toMatchObject({ logLevel: 'debug', logFormat: 'pretty' });
    expect(errorOf(() => resolveGatewayConfig({ logLevel: 'loud' as never })).message).toMatch(/logLevel must be one of fatal, error/);
    expect(errorOf(() => resolveGatewayConfig({ logFormat: 'xml' as never })).message).toMatch(/logFormat must be "json" or "pretty"/);
  });

  it('rejects a short token without echoing it, bare-origin violations and a headers time-out above the request time-out', () => {
    const short = errorOf(() => resolveGatewayConfig({ authToken: 'abc123' }));
    expect(short.message).toMatch(/at least 16 characters/);
    expect(short.message).not.toContain('abc123');
    expect(errorOf(() => resolveGatewayConfig({ corsOrigins: ['https://app.example/path'] })).message).toMatch(/bare origin/);
    expect(errorOf(() => resolveGatewayConfig({ headersTimeoutMs: 10_000, requestTimeoutMs: 5_000 })).message).toMatch(/must not exceed requestTimeoutMs/);
    expect(errorOf(() => resolveGatewayConfig({ keepAliveTimeoutMs: 0 })).code).toBe('GATEWAY_INVALID_CONFIG');
  });

  it('reads the token, hosts, origins, time-outs and log options from the environment and flags (flags win)', async () => {
    const { config } = await loadGatewayConfig({
      argv: ['--log-level', 'warn', '--log-format', 'pretty', '--cors-origin', 'https://a.example', '--cors-origin', 'https://b.example', '--keep-alive-timeout-ms', '70000', '--headers-timeout-ms', '71000'],
      env: { TURNGUARD_AUTH_TOKEN: TOKEN, TURNGUARD_ALLOWED_HOSTS: 'gw.internal, other.internal', TURNGUARD_LOG_LEVEL: 'debug', TURNGUARD_REQUEST_TIMEOUT_MS: '120000' },
      defaultStatsPath: undefined,
    });
    expect(config).toMatchObject({
      authToken: TOKEN,
      allowedHosts: ['gw.internal', 'other.internal'],
      corsOrigins: ['https://a.example', 'https://b.example'],
      keepAliveTimeoutMs: 70_000,
      headersTimeoutMs: 71_000,
      requestTimeoutMs: 120_000,
      logLevel: 'warn',
      logFormat: 'pretty',
    });
    const flagged = await loadGatewayConfig({ argv: ['--auth-token', TOKEN, '--host', '0.0.0.0'], env: {}, defaultStatsPath: undefined });
    expect(flagged.config).toMatchObject({ authToken: TOKEN, host: '0.0.0.0' });
  });

  it('off loopback: refused without a token; the loudly named flag overrides', async () => {
    await expect(loadGatewayConfig({ argv: ['--host', '0.0.0.0'], env: {}, defaultStatsPath: undefined })).rejects.toThrow(/without a gateway token/);
    const overridden = await loadGatewayConfig({ argv: ['--host', '0.0.0.0', '--dangerously-allow-unauthenticated-network'], env: {}, defaultStatsPath: undefined });
    expect(overridden.config.dangerouslyAllowUnauthenticatedNetwork).toBe(true);
  });
});
