import { describe, expect, it } from 'vitest';
import { convertMessagesUsage, convertUsageToMessages, mergeMessagesUsage } from './convert-messages-usage.js';
import { mapFinishReasonToMessages, mapMessagesStopReason } from './map-messages-stop-reason.js';

describe('convertMessagesUsage (R5.1)', () => {
  it('maps cache counters and thinking tokens; total only from known input and output', () => {
    expect(
      convertMessagesUsage({ input_tokens: 10, cache_read_input_tokens: 100, cache_creation_input_tokens: 5, output_tokens: 20, output_tokens_details: { thinking_tokens: 12 } }),
    ).toStrictEqual({ inputTokens: 10, cachedInputTokens: 100, cacheCreationInputTokens: 5, outputTokens: 20, reasoningTokens: 12, totalTokens: 135 });
    expect(convertMessagesUsage({ output_tokens: 3 })).toStrictEqual({
      inputTokens: undefined,
      cachedInputTokens: undefined,
      cacheCreationInputTokens: undefined,
      outputTokens: 3,
      reasoningTokens: undefined,
      totalTokens: undefined,
    });
    expect(convertMessagesUsage(null).inputTokens).toBeUndefined();
  });

  it('treats a negative or non-finite counter as unknown, never as a count (R5.1)', () => {
    const usage = convertMessagesUsage({ input_tokens: -1, output_tokens: Number.POSITIVE_INFINITY });
    expect([usage.inputTokens, usage.outputTokens, usage.totalTokens]).toEqual([undefined, undefined, undefined]);
  });

  it('overwrites cumulative counters and ignores nulls', () => {
    expect(mergeMessagesUsage({ input_tokens: 43, output_tokens: 1 }, { input_tokens: 61, output_tokens: 2, cache_read_input_tokens: null })).toStrictEqual({
      input_tokens: 61,
      output_tokens: 2,
    });
  });

  it('encodes only known counts (R5.3)', () => {
    expect(convertUsageToMessages({ inputTokens: 1, outputTokens: undefined, cachedInputTokens: 0, cacheCreationInputTokens: undefined, reasoningTokens: undefined, totalTokens: 1 })).toStrictEqual({
      input_tokens: 1,
      cache_read_input_tokens: 0,
    });
  });
});

describe('mapMessagesStopReason', () => {
  it.each([
    ['end_turn', 'stop'],
    ['stop_sequence', 'stop'],
    ['max_tokens', 'length'],
    ['model_context_window_exceeded', 'length'],
    ['tool_use', 'tool-calls'],
    ['refusal', 'content-filter'],
    ['pause_turn', 'other'],
    ['brand_new', 'other'],
  ])('%s → %s, raw kept, and back', (raw, unified) => {
    const finishReason = mapMessagesStopReason(raw);
    expect(finishReason).toStrictEqual({ unified, raw });
    expect(mapFinishReasonToMessages(finishReason)).toBe(raw === 'brand_new' ? 'end_turn' : raw);
  });

  it('maps reasons from other protocols by their unified value', () => {
    expect(mapFinishReasonToMessages({ unified: 'tool-calls', raw: 'tool_calls' })).toBe('tool_use');
    expect(mapFinishReasonToMessages({ unified: 'length', raw: 'max_output_tokens' })).toBe('max_tokens');
  });
});
