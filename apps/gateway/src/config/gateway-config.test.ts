import { errorOf } from '../testing/error-of.test-helper.js';
import { describe, expect, it } from 'vitest';
import { DEFAULT_GATEWAY_CONFIG, resolveGatewayConfig } from './gateway-config.js';
import { loadGatewayConfig } from './load-config.js';


describe('gateway config validation', () => {
  it('defaults to loopback and the official upstreams', () => {
    expect(resolveGatewayConfig()).toEqual(DEFAULT_GATEWAY_CONFIG);
    expect(DEFAULT_GATEWAY_CONFIG.host).toBe('127.0.0.1');
  });

  it('rejects unknown keys, at the top and nested, naming them', () => {
    expect(errorOf(() => resolveGatewayConfig({ prot: 1 } as never)).message).toMatch(/^Unknown config key "prot"\. Known: host, port, upstreams, maxBodyBytes, statsPath, streamRecovery, retry, mock, routing, debugDumps, authToken, .*logFormat/);
    expect(errorOf(() => resolveGatewayConfig({ upstreams: { embeddings: 'http://x' } } as never)).message).toBe('Unknown option "upstreams.embeddings". Known: chat, messages, responses.');
    expect(errorOf(() => resolveGatewayConfig({ retry: { tries: 1 } } as never)).code).toBe('GATEWAY_INVALID_CONFIG');
  });

  it('an unknown stream-recovery option is refused with the options that exist (R4.8)', () => {
    const error = errorOf(() => resolveGatewayConfig({ streamRecovery: { maxRecoveries: 5 } as never }));
    expect(error.code).toBe('GATEWAY_INVALID_CONFIG');
    expect(error.message).toBe(
      'Unknown option "streamRecovery.maxRecoveries". Known: enabled, recoveriesPerTurn, turnTimeoutMs, recoverySegmentTimeoutMs, recoveryMaxOutputTokens, checkpointMaxChars, contextWindowTokens, modelMaxOutputTokens.',
    );
  });

  it('rejects bad URLs, non-http schemes and credentials in URLs', () => {
    expect(errorOf(() => resolveGatewayConfig({ upstreams: { chat: 'not a url' } })).message).toMatch(/upstreams\.chat is not a valid URL/);
    expect(errorOf(() => resolveGatewayConfig({ upstreams: { messages: 'ftp://x' } })).message).toMatch(/http or https/);
    expect(errorOf(() => resolveGatewayConfig({ upstreams: { chat: 'https://user:secret@x/v1' } })).message).toMatch(/must not carry credentials/);
  });

  it('R4.8 surfaces core\'s error for a stream-recovery limit above its default', () => {
    const error = errorOf(() => resolveGatewayConfig({ streamRecovery: { turnTimeoutMs: 900_000 } }));
    expect(error.code).toBe('INVALID_STREAM_RECOVERY_OPTION');
    expect(error.message).toContain('above its default of 480000');
    expect(resolveGatewayConfig({ streamRecovery: { turnTimeoutMs: 60_000 } }).streamRecovery).toEqual({ turnTimeoutMs: 60_000 });
  });

  it('rejects out-of-range numbers', () => {
    expect(errorOf(() => resolveGatewayConfig({ port: 70_000 })).message).toMatch(/port must be an integer from 0 to 65535/);
    expect(errorOf(() => resolveGatewayConfig({ maxBodyBytes: 0 })).code).toBe('GATEWAY_INVALID_CONFIG');
  });
});

describe('loadGatewayConfig: file < environment < flags', () => {
  const file = JSON.stringify({ port: 9000, upstreams: { chat: 'http://file.example/v1' }, retry: { initialDelayMs: 5 }, statsPath: '/tmp/from-file.json' });
  const read = async (path: string): Promise<string> => {
    if (path === '/cfg.json') return file;
    throw Object.assign(new Error('nope'), { code: 'ENOENT' });
  };

  it('layers the sources key by key', async () => {
    const { config } = await loadGatewayConfig({
      argv: ['--config', '/cfg.json', '--port', '9100', '--stream-recovery', 'off'],
      env: { TURNGUARD_UPSTREAM_MESSAGES: 'http://env.example', TURNGUARD_PORT: '9050', TURNGUARD_MAX_RETRIES: '3' },
      defaultStatsPath: '/home/x/.turnguard/stats.json',
      readTextFile: read,
    });
    expect(config.port).toBe(9100);
    expect(config.upstreams).toEqual({ chat: 'http://file.example/v1', messages: 'http://env.example', responses: 'https://api.openai.com/v1' });
    expect(config.retry).toEqual({ initialDelayMs: 5, maxRetries: 3 });
    expect(config.streamRecovery).toBe(false);
    expect(config.statsPath).toBe('/tmp/from-file.json');
  });

  it('--no-stats turns stats off; --mock and TURNGUARD_MOCK turn the mock on', async () => {
    const { config } = await loadGatewayConfig({ argv: ['--no-stats'], env: { TURNGUARD_MOCK: '1' }, defaultStatsPath: '/d.json' });
    expect(config.statsPath).toBeUndefined();
    expect(config.mock).toBe(true);
  });

  it('reports unreadable files, bad JSON, unknown flags and bad numbers clearly', async () => {
    const load = (argv: string[], env: Record<string, string> = {}) => loadGatewayConfig({ argv, env, defaultStatsPath: undefined, readTextFile: read });
    await expect(load(['--config', '/missing.json'])).rejects.toThrow('Cannot read the config file /missing.json (ENOENT).');
    await expect(load(['--frobnicate'])).rejects.toThrow(/^Unknown option '--frobnicate'\. Known: --config, --host, --port, .*--stream-recovery, .*--log-format, --help\.$/);
    await expect(load(['--stream-recovery', '{"maxRecoveries":5}'])).rejects.toThrow(/^Unknown option "streamRecovery\.maxRecoveries"\. Known: enabled, recoveriesPerTurn, /);
    await expect(load(['--port', 'eighty'])).rejects.toThrow('--port must be a whole number, got "eighty".');
    await expect(load([], { TURNGUARD_STREAM_RECOVERY: '{"checkpointMaxChars": 999999}' })).rejects.toThrow(/above its default/);
  });
});

describe('R11.1 the routing section of the config file', () => {
  const file = JSON.stringify({
    upstreams: { messages: 'http://simple.example' },
    routing: {
      upstreams: { deepseek: { protocol: 'chat', baseUrl: 'https://api.deepseek.com/v1', apiKey: { env: 'DEEPSEEK_API_KEY' } } },
      models: { fast: { upstream: 'deepseek', model: 'deepseek-chat' } },
      fallbacks: { '*': ['fast'] },
    },
  });

  it('is read from the file next to the simple form', async () => {
    const { config } = await loadGatewayConfig({ argv: ['--config', '/r.json'], env: {}, defaultStatsPath: undefined, readTextFile: async () => file });
    expect(config.upstreams.messages).toBe('http://simple.example');
    expect(config.routing.upstreams['deepseek']).toEqual({ protocol: 'chat', baseUrl: 'https://api.deepseek.com/v1', keySource: { from: 'env', name: 'DEEPSEEK_API_KEY' } });
    expect(config.routing.fallbacks).toEqual({ '*': ['fast'] });
  });

  it('defaults to no named upstreams and no fallbacks; its errors are GATEWAY_INVALID_CONFIG naming the key', () => {
    expect(resolveGatewayConfig().routing).toEqual({ upstreams: {}, models: {}, fallbacks: {} });
    const error = errorOf(() => resolveGatewayConfig({ routing: { models: { fast: { upstream: 'nowhere' } } } }));
    expect(error.code).toBe('GATEWAY_INVALID_CONFIG');
    expect(error.message).toBe('routing.models.fast.upstream: no upstream named "nowhere"; valid: chat, messages, responses');
  });
});
