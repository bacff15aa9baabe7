import { describe, expect, it } from 'vitest';
import { errorOf } from '../testing/error-of.test-helper.js';
import { parseRoutingSettings } from './routing-schema.js';

const upstreams = {
  anthropic: { protocol: 'messages', baseUrl: 'https://api.anthropic.com/' },
  openai: { protocol: 'chat', baseUrl: 'https://api.openai.com/v1', apiKey: { env: 'OPENAI_API_KEY' } },
  deepseek: { protocol: 'chat', baseUrl: 'https://api.deepseek.com/v1', apiKey: { clientOrEnv: 'DEEPSEEK_API_KEY' } },
  mine: { protocol: 'responses', baseUrl: 'http://127.0.0.1:9000/v1', apiKey: 'client' },
};

describe('R11.1 routing config', () => {
  it('reads named upstreams, model routes and fallback chains', () => {
    const settings = parseRoutingSettings({
      upstreams,
      models: { 'claude-sonnet-4-5': { upstream: 'anthropic' }, fast: { upstream: 'deepseek', model: 'deepseek-chat' }, 'gpt-4.1': { upstream: 'chat' } },
      fallbacks: { 'claude-sonnet-4-5': ['gpt-4.1', 'fast'], '*': ['fast'] },
    });
    expect(settings.upstreams).toEqual({
      anthropic: { protocol: 'messages', baseUrl: 'https://api.anthropic.com', keySource: { from: 'client-or-env', name: 'ANTHROPIC_API_KEY' } },
      openai: { protocol: 'chat', baseUrl: 'https://api.openai.com/v1', keySource: { from: 'env', name: 'OPENAI_API_KEY' } },
      deepseek: { protocol: 'chat', baseUrl: 'https://api.deepseek.com/v1', keySource: { from: 'client-or-env', name: 'DEEPSEEK_API_KEY' } },
      mine: { protocol: 'responses', baseUrl: 'http://127.0.0.1:9000/v1', keySource: { from: 'client' } },
    });
    expect(settings.models).toEqual({
      'claude-sonnet-4-5': { upstream: 'anthropic', model: 'claude-sonnet-4-5' },
      fast: { upstream: 'deepseek', model: 'deepseek-chat' },
      'gpt-4.1': { upstream: 'chat', model: 'gpt-4.1' },
    });
    expect(settings.fallbacks).toEqual({ 'claude-sonnet-4-5': ['gpt-4.1', 'fast'], '*': ['fast'] });
  });

  it('no routing section is an empty one', () => {
    expect(parseRoutingSettings(undefined)).toEqual({ upstreams: {}, models: {}, fallbacks: {} });
  });

  it('an unknown key names its full path and lists the valid keys', () => {
    const error = errorOf(() => parseRoutingSettings({ upstreams: { a: { protocl: 'chat', protocol: 'chat', baseUrl: 'http://x/v1' } } }));
    expect(error.code).toBe('GATEWAY_INVALID_CONFIG');
    expect(error.message).toBe('routing.upstreams.a: unknown key "protocl"; valid keys: protocol, baseUrl, apiKey, prefill');
    expect(errorOf(() => parseRoutingSettings({ fallback: {} })).message).toBe('routing: unknown key "fallback"; valid keys: upstreams, models, fallbacks');
  });

  it('every problem is listed at once, each with its path', () => {
    const error = errorOf(() =>
      parseRoutingSettings({
        upstreams: { a: { protocol: 'grpc', baseUrl: 'ftp://x' }, b: { protocol: 'chat', baseUrl: 'https://u:p@x/v1' } },
        models: { m: { upstream: 'a', model: '' } },
      }),
    );
    expect(error.message.split('\n')).toEqual([
      'The routing config has 4 problems:',
      'routing.upstreams.a.protocol: must be one of chat, messages, responses',
      'routing.upstreams.a.baseUrl: must use http or https',
      'routing.upstreams.b.baseUrl: must not carry credentials; use apiKey {"env": …}',
      'routing.models.m.model: Too small: expected string to have >=1 characters',
    ]);
    expect(error.details['option']).toBe('routing.upstreams.a.protocol');
  });

  it('R8.5: a literal key is refused and never echoed', () => {
    const secret = 'sk-ant-api03-MARKER-never-in-an-error';
    for (const apiKey of [secret, { env: secret }, { value: secret }]) {
      const error = errorOf(() => parseRoutingSettings({ upstreams: { a: { protocol: 'chat', baseUrl: 'https://x/v1', apiKey } } }));
      expect(error.message).toContain('routing.upstreams.a.apiKey');
      expect(JSON.stringify({ message: error.message, details: error.details })).not.toContain('MARKER');
    }
    expect(errorOf(() => parseRoutingSettings({ upstreams: { a: { protocol: 'chat', baseUrl: 'https://x/v1', apiKey: secret } } })).message).toBe(
      'routing.upstreams.a.apiKey: must be "client", {"env": "VARIABLE"} or {"clientOrEnv": "VARIABLE"}; a literal key is never accepted here (R8.5)',
    );
  });

  it('references are checked: unknown upstreams, reserved names, self and * fallbacks', () => {
    expect(errorOf(() => parseRoutingSettings({ models: { m: { upstream: 'nowhere' } } })).message).toBe(
      'routing.models.m.upstream: no upstream named "nowhere"; valid: chat, messages, responses',
    );
    expect(errorOf(() => parseRoutingSettings({ upstreams: { chat: { protocol: 'chat', baseUrl: 'https://x/v1' } } })).message).toMatch(
      /^routing\.upstreams\.chat: the names chat, messages, responses are the simple form's upstreams/,
    );
    expect(errorOf(() => parseRoutingSettings({ fallbacks: { a: ['a'] } })).message).toBe('routing.fallbacks.a: a model cannot be its own fallback');
    expect(errorOf(() => parseRoutingSettings({ fallbacks: { a: ['*'] } })).message).toBe('routing.fallbacks.a: "*" cannot be a fallback');
    expect(errorOf(() => parseRoutingSettings({ fallbacks: { a: ['b,c'] } })).message).toBe('routing.fallbacks.a.0: must not contain spaces or commas');
  });
});
