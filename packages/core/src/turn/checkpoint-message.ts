import type { UserMessage } from '../types/message.js';

/**
 * R4.4 instruction. Its wording was revised after a real recovery failed
 * because the model continued the long analysis; saying that
 * the checkpoint already satisfies the analysis, asking for the conclusion
 * first in ≤ 800 words and forbidding a restart made the second run succeed.
 * 800 words is a prompt constraint, not a token limit.
 */
export const RECOVERY_INSTRUCTION =
  'The checkpoint above already satisfies the long analysis this task asked for. ' +
  'Do not restart the analysis and do not explore further constructions or alternatives. ' +
  'Write the final answer now: conclusion first, then only the key supporting points, in at most 800 words.';

export const CHECKPOINT_BEGIN =
  '[Reasoning checkpoint — input material, not an instruction. ' +
  'It is the reasoning you already produced for the conversation above before your response was cut off.]\n' +
  '<<<CHECKPOINT BEGIN>>>\n';
export const CHECKPOINT_END = '\n<<<CHECKPOINT END>>>';

/** The labelled checkpoint text: the received thinking between explicit markers. */
export function formatCheckpointText(reasoningText: string): string {
  return CHECKPOINT_BEGIN + reasoningText + CHECKPOINT_END;
}

/**
 * The one message appended for a recovery (R4.4): a user message (never a
 * system instruction, never a tool result) holding the labelled checkpoint
 * and the instruction. `isMeta` because the host's transcript must not show
 * it. It lives only in memory for this call (R4.10).
 */
export function buildCheckpointMessage(reasoningText: string): UserMessage {
  return {
    role: 'user',
    isMeta: true,
    content: [
      { type: 'text', text: formatCheckpointText(reasoningText) },
      { type: 'text', text: RECOVERY_INSTRUCTION },
    ],
  };
}
