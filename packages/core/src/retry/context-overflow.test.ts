import { describe, expect, it } from 'vitest';
import { computeResizedMaxOutputTokens, parseContextOverflowMessage } from './context-overflow.js';

describe('context overflow (R1.8)', () => {
  it('R1.8 parses the Anthropic "A + B > C" text', () => {
    expect(
      parseContextOverflowMessage('input length and `max_tokens` exceed context limit: 188059 + 20000 > 200000, decrease input length or `max_tokens` and try again'),
    ).toEqual({ inputTokens: 188059, maxTokens: 20000, contextLimit: 200000 });
    expect(parseContextOverflowMessage('prompt is too long: 210000 tokens > 200000 maximum')).toBeUndefined();
    expect(parseContextOverflowMessage(undefined)).toBeUndefined();
  });

  it('R1.8 resizes to max(3000, C - A - 1000, thinkingBudget + 1)', () => {
    expect(computeResizedMaxOutputTokens({ inputTokens: 188059, maxTokens: 20000, contextLimit: 200000 })).toBe(10941);
    expect(computeResizedMaxOutputTokens({ inputTokens: 198000, maxTokens: 20000, contextLimit: 200000 })).toBe(3000);
    expect(computeResizedMaxOutputTokens({ inputTokens: 188059, maxTokens: 20000, contextLimit: 200000, thinkingBudget: 16000 })).toBe(16001);
  });
});
