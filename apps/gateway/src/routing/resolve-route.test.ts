import { describe, expect, it } from 'vitest';
import { errorOf } from '../testing/error-of.test-helper.js';
import { describeKeySource, resolveAttemptCredentials } from './key-source.js';
import { resolveRoute } from './resolve-route.js';
import { parseRoutingSettings } from './routing-schema.js';
import { buildRoutingTable } from './routing-table.js';

const defaults = { chat: 'https://api.openai.com/v1', responses: 'https://api.openai.com/v1', messages: 'https://api.anthropic.com' };
const table = buildRoutingTable(
  parseRoutingSettings({
    upstreams: {
      deepseek: { protocol: 'chat', baseUrl: 'https://api.deepseek.com/v1', apiKey: { env: 'DEEPSEEK_API_KEY' } },
      backup: { protocol: 'messages', baseUrl: 'https://backup.example', apiKey: { env: 'BACKUP_KEY' } },
    },
    models: {
      'claude-sonnet-4-5': { upstream: 'messages' },
      'claude-backup': { upstream: 'backup', model: 'claude-sonnet-4-5' },
      fast: { upstream: 'deepseek', model: 'deepseek-chat' },
    },
    fallbacks: { 'claude-sonnet-4-5': ['claude-backup', 'fast'], '*': ['fast'] },
  }),
  defaults,
);

const brief = (attempts: ReturnType<typeof resolveRoute>) => attempts.map((a) => `${a.upstream}/${a.model}(${a.protocol},${a.source})`);

describe('R11.1 resolveRoute', () => {
  it('the requested model, then its own chain, each on its upstream and protocol family', () => {
    const attempts = resolveRoute(table, 'messages', 'claude-sonnet-4-5', undefined);
    expect(brief(attempts)).toEqual(['messages/claude-sonnet-4-5(messages,request)', 'backup/claude-sonnet-4-5(messages,config)', 'deepseek/deepseek-chat(chat,config)']);
    expect(attempts[0]).toEqual({
      upstream: 'messages',
      protocol: 'messages',
      baseUrl: 'https://api.anthropic.com',
      keySource: { from: 'client-or-env', name: 'ANTHROPIC_API_KEY' },
      model: 'claude-sonnet-4-5',
      requestedAs: 'claude-sonnet-4-5',
      source: 'request',
    });
    expect(attempts[2]).toMatchObject({ baseUrl: 'https://api.deepseek.com/v1', keySource: { from: 'env', name: 'DEEPSEEK_API_KEY' }, requestedAs: 'fast' });
  });

  it('a model without its own chain gets "*"; an unmapped model goes to the client protocol\'s own upstream', () => {
    expect(brief(resolveRoute(table, 'responses', 'gpt-5.1', undefined))).toEqual(['responses/gpt-5.1(responses,request)', 'deepseek/deepseek-chat(chat,config)']);
  });

  it('the header replaces the config chain; [] turns fallbacks off', () => {
    expect(brief(resolveRoute(table, 'chat', 'claude-sonnet-4-5', 'gpt-4.1, fast'))).toEqual([
      'messages/claude-sonnet-4-5(messages,request)',
      'chat/gpt-4.1(chat,header)',
      'deepseek/deepseek-chat(chat,header)',
    ]);
    expect(brief(resolveRoute(table, 'messages', 'claude-sonnet-4-5', '[]'))).toEqual(['messages/claude-sonnet-4-5(messages,request)']);
  });

  it('the same destination is never tried twice', () => {
    expect(brief(resolveRoute(table, 'chat', 'fast', 'deepseek-chat,fast,gpt-4.1'))).toEqual(['deepseek/deepseek-chat(chat,request)', 'chat/deepseek-chat(chat,header)', 'chat/gpt-4.1(chat,header)']);
    expect(brief(resolveRoute(table, 'chat', 'fast', undefined))).toEqual(['deepseek/deepseek-chat(chat,request)']);
  });

  it('with no routing section the simple form is an implicit config: one upstream per protocol, no fallbacks', () => {
    const simple = buildRoutingTable(parseRoutingSettings(undefined), { ...defaults, chat: 'http://127.0.0.1:1/v1/' });
    expect(resolveRoute(simple, 'chat', 'gpt-4.1', undefined)).toEqual([
      { upstream: 'chat', protocol: 'chat', baseUrl: 'http://127.0.0.1:1/v1', keySource: { from: 'client-or-env', name: 'OPENAI_API_KEY' }, model: 'gpt-4.1', requestedAs: 'gpt-4.1', source: 'request' },
    ]);
  });

  it('a bad header is the typed 400', () => {
    expect(errorOf(() => resolveRoute(table, 'chat', 'gpt-4.1', '["x",')).code).toBe('GATEWAY_INVALID_FALLBACKS_HEADER');
  });
});

describe('R8.5 key sources', () => {
  const env = { OPENAI_API_KEY: 'sk-env', BACKUP_KEY: ' sk-backup ', EMPTY: ' ' };
  it.each([
    ['client-or-env, client sent a key', { from: 'client-or-env', name: 'OPENAI_API_KEY' }, true, { kind: 'client' }],
    ['client-or-env, no client key', { from: 'client-or-env', name: 'OPENAI_API_KEY' }, false, { kind: 'key', apiKey: 'sk-env' }],
    ['env wins over the client key (a fallback on another provider)', { from: 'env', name: 'BACKUP_KEY' }, true, { kind: 'key', apiKey: 'sk-backup' }],
    ['client only, none sent', { from: 'client' }, false, { kind: 'missing', lookedFor: "the client's authorization or x-api-key header" }],
    ['env variable empty', { from: 'env', name: 'EMPTY' }, false, { kind: 'missing', lookedFor: 'the EMPTY variable' }],
  ] as const)('%s', (_name, source, clientSentKey, expected) => {
    expect(resolveAttemptCredentials(source, clientSentKey, env)).toEqual(expected);
  });

  it('a key source is described by its variable\'s name, never its value', () => {
    expect([{ from: 'client' }, { from: 'env', name: 'A' }, { from: 'client-or-env', name: 'B' }].map((s) => describeKeySource(s as never))).toEqual(['client', 'env:A', 'client-or-env:B']);
  });
});
