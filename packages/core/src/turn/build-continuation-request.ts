import type { ProtocolAdapter } from '../adapter/protocol-adapter.js';
import type { AssistantMessage } from '../types/message.js';
import type { PrefillDialect } from './failover-options.js';

/**
 * R11.6: the request that continues a cut answer — the destination's own
 * request, plus one assistant message holding the answer text the host
 * already has (trailing whitespace removed: Anthropic refuses a prefill that
 * ends with it, decision 0401), in the destination's prefill dialect, with
 * tool calling disabled in the protocol's own dialect (as R4.5's recovery).
 * Only what the model writes after the prefill comes back.
 */
export function buildContinuationRequest(adapter: ProtocolAdapter<object>, native: object, dialect: PrefillDialect, answerSoFar: string): object {
  const prefill: AssistantMessage = {
    role: 'assistant',
    content: [{ type: 'text', text: answerSoFar.trimEnd() }],
    // DeepSeek's and Mistral's marker on the message itself; the Chat adapter keeps a message's native fields.
    ...(dialect === 'prefix-flag' ? { providerFields: { prefix: true } } : {}),
  };
  const withPrefill = adapter.appendMessages(native, [prefill]);
  // vLLM's request-level switch; the two flags together, or it refuses ("Cannot be used at the same time").
  const dialected = dialect === 'continue-final-message' ? { ...withPrefill, continue_final_message: true, add_generation_prompt: false } : withPrefill;
  return adapter.withToolsDisabled(dialected);
}

/**
 * Whether a destination can take a prefill for this request: it names a
 * dialect, and it is not an Anthropic request with extended thinking on,
 * which refuses every prefill ("Prefilling is only available for
 * non-extended thinking modes", decision 0401).
 */
export function canTakePrefill(adapter: ProtocolAdapter<object>, native: object, dialect: PrefillDialect | undefined): dialect is PrefillDialect {
  if (dialect === undefined) return false;
  if (dialect !== 'messages') return true;
  try {
    return adapter.getThinkingBudget?.(native) === undefined;
  } catch {
    return false;
  }
}
