import { describe, expect, it } from 'vitest';
import { computeRecoveryOutputBudget, decideRecovery, type RecoveryDecisionInput } from './decide-recovery.js';
import { countPromptTextBytes, estimateTokensFromBytes } from './estimate-context-tokens.js';
import { resolveStreamRecoveryConfig } from './recovery-config.js';

const base: RecoveryDecisionInput = {
  config: resolveStreamRecoveryConfig(undefined),
  segmentEnd: 'eof-without-terminal',
  reasoningText: 'some reasoning',
  textProduced: false,
  toolCallProduced: false,
  segmentOutputTokens: undefined,
  recoveriesSoFar: 0,
  aborted: false,
  nowMs: 1_000,
  turnDeadlineAt: 481_000,
  hostMaxOutputTokens: undefined,
  inputTextBytes: 100,
};

describe('decideRecovery (R4.1, R4.2, R4.7)', () => {
  it('recovers a reasoning-only EOF with the default 8192-token budget; unknown window is reported, not claimed', () => {
    expect(decideRecovery(base)).toEqual({ recover: true, maxOutputTokens: 8192, capacityCheck: 'window-unknown' });
  });

  it.each<[string, Partial<RecoveryDecisionInput>, string]>([
    ['disabled', { config: resolveStreamRecoveryConfig(false) }, 'disabled'],
    ['a terminal frame or network error', { segmentEnd: 'other' }, 'not-eof'],
    ['text', { textProduced: true }, 'text-produced'],
    ['a tool call', { toolCallProduced: true }, 'tool-call-produced'],
    ['whitespace-only reasoning', { reasoningText: ' \n ' }, 'no-reasoning'],
    ['an abort', { aborted: true }, 'aborted'],
    ['a passed deadline', { nowMs: 481_000 }, 'deadline-passed'],
    ['a recovery already made', { recoveriesSoFar: 1 }, 'recovery-limit'],
    ['recoveriesPerTurn 0', { config: resolveStreamRecoveryConfig({ recoveriesPerTurn: 0 }) }, 'recovery-limit'],
    ['a checkpoint one char over', { reasoningText: 'x'.repeat(131_073) }, 'checkpoint-too-large'],
    ['a small host cap', { hostMaxOutputTokens: 2000, segmentOutputTokens: 1500 }, 'output-budget'],
  ])('does not recover after %s', (_name, change, reason) => {
    expect(decideRecovery({ ...base, ...change })).toEqual({ recover: false, reason });
  });

  it('accepts a checkpoint of exactly the limit (never trimmed)', () => {
    expect(decideRecovery({ ...base, reasoningText: 'x'.repeat(131_072) }).recover).toBe(true);
  });

  it('checks capacity against a known window, counting the output reserve', () => {
    const config = resolveStreamRecoveryConfig({ contextWindowTokens: 9000 });
    expect(decideRecovery({ ...base, config })).toMatchObject({ recover: true, capacityCheck: 'passed' });
    expect(decideRecovery({ ...base, config, inputTextBytes: 3 * 1000 })).toEqual({
      recover: false,
      reason: 'context-capacity',
    });
    expect(decideRecovery({ ...base, config, inputTextBytes: undefined })).toEqual({
      recover: false,
      reason: 'context-capacity',
    });
  });

  it('computes the budget from the host cap minus known output, the model cap and the recovery cap', () => {
    expect(computeRecoveryOutputBudget(8192, 32768, undefined, 30000)).toBe(2768);
    expect(computeRecoveryOutputBudget(8192, undefined, 4096, undefined)).toBe(4096);
    expect(computeRecoveryOutputBudget(8192, 1000, undefined, 5000)).toBe(0);
    // Unknown segment output subtracts nothing: never an invented count (R5.1).
    expect(computeRecoveryOutputBudget(8192, 600, undefined, undefined)).toBe(600);
  });
});

describe('countPromptTextBytes (R4.7 capacity estimate)', () => {
  it('counts text bytes and leaves images and data: URLs out', () => {
    const bytes = countPromptTextBytes({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'héllo data:image/png;base64,iVBORw0KGgoAAAANSUhEUg== end' },
            { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'A'.repeat(10_000) } },
          ],
        },
      ],
    });
    expect(bytes).toBe(new TextEncoder().encode('héllo  end').byteLength);
    expect(estimateTokensFromBytes(10)).toBe(4);
  });
});

describe('resolveStreamRecoveryConfig (R4.8)', () => {
  it('allows lowering, rejects raising with the option and its default named', () => {
    expect(resolveStreamRecoveryConfig({ recoverySegmentTimeoutMs: 60_000 })).toMatchObject({
      enabled: true,
      recoverySegmentTimeoutMs: 60_000,
      turnTimeoutMs: 480_000,
    });
    expect(() => resolveStreamRecoveryConfig({ checkpointMaxChars: 200_000 })).toThrow(
      'streamRecovery.checkpointMaxChars is 200000, above its default of 131072; limits may only be lowered (R4.8).',
    );
    expect(() => resolveStreamRecoveryConfig({ recoveriesPerTurn: 2 })).toThrow(/default of 1/);
    expect(() => resolveStreamRecoveryConfig({ turnTimeoutMs: -1 })).toThrow(/non-negative integer/);
    expect(resolveStreamRecoveryConfig({ enabled: false })).toEqual({ enabled: false });
  });
});
