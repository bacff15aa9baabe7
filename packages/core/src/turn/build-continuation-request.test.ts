import { describe, expect, it } from 'vitest';
import type { ProtocolAdapter } from '../adapter/protocol-adapter.js';
import { buildContinuationRequest, canTakePrefill } from './build-continuation-request.js';
import { chainRequest, createChainAdapter, type ChainNative } from './fake-chain-wire.test-helper.js';

const adapter = createChainAdapter('chat') as ProtocolAdapter<object>;

describe('R11.6 the continuation request in each prefill dialect (decision 0401)', () => {
  it('trailing-message: one assistant message with the answer so far, trailing whitespace removed, tools off', () => {
    const built = buildContinuationRequest(adapter, chainRequest(), 'trailing-message', 'Partial answer \n ') as ChainNative;
    expect(built.messages.at(-1)).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'Partial answer' }] });
    expect(built.tool_choice).toBe('none');
  });

  it('prefix-flag marks the message (DeepSeek, Mistral); continue-final-message sets vLLM\'s two flags together', () => {
    expect((buildContinuationRequest(adapter, chainRequest(), 'prefix-flag', 'x') as ChainNative).messages.at(-1)).toMatchObject({ providerFields: { prefix: true } });
    expect(buildContinuationRequest(adapter, chainRequest(), 'continue-final-message', 'x')).toMatchObject({ continue_final_message: true, add_generation_prompt: false });
  });

  it('a target without a dialect, or Anthropic with extended thinking on, takes none', () => {
    const thinking = { ...adapter, getThinkingBudget: (native: object) => ((native as { thinking?: number }).thinking) } as ProtocolAdapter<object>;
    expect(canTakePrefill(adapter, chainRequest(), undefined)).toBe(false);
    expect(canTakePrefill(thinking, { ...chainRequest(), thinking: 2048 }, 'messages')).toBe(false);
    expect(canTakePrefill(thinking, chainRequest(), 'messages')).toBe(true);
    expect(canTakePrefill(adapter, chainRequest(), 'prefix-flag')).toBe(true);
  });
});
