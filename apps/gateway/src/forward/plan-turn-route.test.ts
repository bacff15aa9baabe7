import { describe, expect, it } from 'vitest';
import { errorOf } from '../testing/error-of.test-helper.js';
import { parseRoutingSettings } from '../routing/routing-schema.js';
import { buildRoutingTable } from '../routing/routing-table.js';
import { planTurnRoute } from './plan-turn-route.js';

const table = buildRoutingTable(
  parseRoutingSettings({
    upstreams: {
      deepseek: { protocol: 'chat', baseUrl: 'https://api.deepseek.com/v1', apiKey: { env: 'DEEPSEEK_API_KEY' }, prefill: 'prefix-flag' },
      backup: { protocol: 'messages', baseUrl: 'https://backup.example', apiKey: { env: 'BACKUP_KEY' } },
      nokey: { protocol: 'chat', baseUrl: 'https://nokey.example/v1', apiKey: { env: 'NOT_SET' } },
    },
    models: { fast: { upstream: 'deepseek', model: 'deepseek-chat' }, 'claude-backup': { upstream: 'backup', model: 'claude-sonnet-4-5' }, ghost: { upstream: 'nokey' } },
    fallbacks: { 'claude-sonnet-4-5': ['claude-backup', 'ghost', 'fast'] },
  }),
  { chat: 'https://api.openai.com/v1', responses: 'https://api.openai.com/v1', messages: 'https://api.anthropic.com' },
);
const env = { DEEPSEEK_API_KEY: 'sk-deepseek', BACKUP_KEY: 'sk-backup' };
const clientHeaders = { 'x-api-key': 'sk-ant-client', 'anthropic-version': '2023-06-01', 'x-turnguard-fallbacks': undefined as string | undefined };

describe('R11.1 a request\'s route, as runTurn takes it', () => {
  it('the requested model on its upstream first, then the chain; a fallback without its key is left out', () => {
    const route = planTurnRoute({ table, protocol: 'messages', body: { model: 'claude-sonnet-4-5' }, headers: clientHeaders, requestUrl: '/v1/messages?beta=true', env, mock: false });
    expect(route.target).toEqual({ baseUrl: 'https://api.anthropic.com?beta=true', headers: { 'x-api-key': 'sk-ant-client', 'anthropic-version': '2023-06-01' } });
    expect(route.prefill).toBe('messages');
    expect(route.fallbacks.map((f) => [f.upstream, f.model, f.adapter.protocol, f.prefill])).toEqual([
      ['backup', 'claude-sonnet-4-5', 'messages', 'messages'],
      ['deepseek', 'deepseek-chat', 'chat', 'prefix-flag'],
    ]);
    // Same family: the client's headers, with the upstream's own key instead of the client's.
    expect(route.fallbacks[0]!.target).toEqual({ baseUrl: 'https://backup.example?beta=true', apiKey: 'sk-backup', headers: { 'anthropic-version': '2023-06-01' } });
    // Another family: none of the client protocol's headers, its own key.
    expect(route.fallbacks[1]!.target).toEqual({ baseUrl: 'https://api.deepseek.com/v1', apiKey: 'sk-deepseek', headers: {} });
  });

  it('the header replaces the chain and is never forwarded', () => {
    const route = planTurnRoute({ table, protocol: 'chat', body: { model: 'gpt-4.1' }, headers: { authorization: 'Bearer sk-openai', 'x-turnguard-fallbacks': '["fast"]' }, requestUrl: '/v1/chat/completions', env, mock: false });
    expect(route.fallbacks.map((f) => f.model)).toEqual(['deepseek-chat']);
    expect(route.target.headers).toEqual({ authorization: 'Bearer sk-openai' });
    expect(JSON.stringify(route)).not.toContain('x-turnguard-fallbacks');
  });

  it('an alias is sent as the upstream\'s model; a first entry of another family gets its adapter', () => {
    const route = planTurnRoute({ table, protocol: 'messages', body: { model: 'fast', max_tokens: 9 }, headers: clientHeaders, requestUrl: '/v1/messages', env, mock: false });
    expect(route.body).toEqual({ model: 'deepseek-chat', max_tokens: 9 });
    expect(route.targetAdapter?.protocol).toBe('chat');
    expect(route.target).toEqual({ baseUrl: 'https://api.deepseek.com/v1', apiKey: 'sk-deepseek', headers: {} });
  });

  it('a bad header is a typed 400', () => {
    expect(errorOf(() => planTurnRoute({ table, protocol: 'chat', body: { model: 'm' }, headers: { 'x-turnguard-fallbacks': '["a",' }, requestUrl: '/', env, mock: false })).code).toBe('GATEWAY_INVALID_FALLBACKS_HEADER');
  });
});
