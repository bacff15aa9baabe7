import { describe, expect, it } from 'vitest';
import { convertChatUsage, toChatUsage } from './convert-chat-usage.js';
import { mapChatFinishReason, toChatFinishReason } from './map-chat-finish-reason.js';

describe('convertChatUsage (R5.1)', () => {
  it('reads counts and breakdowns; absent stays undefined, a reported 0 stays 0', () => {
    expect(convertChatUsage({ prompt_tokens: 16, completion_tokens: 300, total_tokens: 316, prompt_tokens_details: { cached_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 0 } })).toEqual({
      inputTokens: 16,
      cachedInputTokens: 0,
      cacheCreationInputTokens: undefined,
      outputTokens: 300,
      reasoningTokens: 0,
      totalTokens: 316,
    });
    expect(convertChatUsage({ prompt_tokens: 124, total_tokens: 146, completion_tokens: 22 })).toMatchObject({ cachedInputTokens: undefined, reasoningTokens: undefined });
  });

  it('DeepSeek prompt_cache_hit_tokens is the cached count when details are missing; junk is unknown', () => {
    expect(convertChatUsage({ prompt_tokens: 339, prompt_cache_hit_tokens: 320 }).cachedInputTokens).toBe(320);
    expect(convertChatUsage({ prompt_tokens: -1, completion_tokens: 'x', total_tokens: Number.NaN })).toEqual({
      inputTokens: undefined, cachedInputTokens: undefined, cacheCreationInputTokens: undefined, outputTokens: undefined, reasoningTokens: undefined, totalTokens: undefined,
    });
  });

  it('R5.3: host-facing usage omits unknown counts and is undefined when nothing is known', () => {
    expect(toChatUsage({ inputTokens: 5, cachedInputTokens: undefined, cacheCreationInputTokens: 2, outputTokens: undefined, reasoningTokens: undefined, totalTokens: undefined })).toEqual({
      prompt_tokens: 5,
      prompt_tokens_details: { cache_write_tokens: 2 },
    });
    expect(toChatUsage({ inputTokens: undefined, cachedInputTokens: undefined, cacheCreationInputTokens: undefined, outputTokens: undefined, reasoningTokens: undefined, totalTokens: undefined })).toBeUndefined();
  });
});

describe('mapChatFinishReason', () => {
  it.each([
    ['stop', 'stop'],
    ['length', 'length'],
    ['tool_calls', 'tool-calls'],
    ['function_call', 'tool-calls'],
    ['content_filter', 'content-filter'],
    ['error', 'error'],
    ['eos', 'other'],
  ])('%s → %s, keeping the raw value', (raw, unified) => {
    expect(mapChatFinishReason(raw)).toEqual({ unified, raw });
    expect(toChatFinishReason(mapChatFinishReason(raw))).toBe(raw);
  });

  it('without a raw value the encoder writes the Chat name of the unified reason', () => {
    expect(toChatFinishReason({ unified: 'tool-calls', raw: undefined })).toBe('tool_calls');
    expect(toChatFinishReason({ unified: 'content-filter', raw: undefined })).toBe('content_filter');
  });
});
