import type { ProtocolAdapter } from '../adapter/protocol-adapter.js';
import { buildCheckpointMessage } from './checkpoint-message.js';

/**
 * R4.3–R4.5: the original request, plus the labelled checkpoint and the
 * instruction as one user message, with the recovery output budget and tool
 * calling disabled in the protocol's own dialect (declarations stay: some
 * upstreams fingerprint a request by them, R4.5).
 */
export function buildRecoveryRequest<Native extends object>(
  adapter: ProtocolAdapter<Native>,
  original: Native,
  reasoningText: string,
  maxOutputTokens: number,
): Native {
  const withCheckpoint = adapter.appendMessages(original, [buildCheckpointMessage(reasoningText)]);
  return adapter.withToolsDisabled(adapter.withMaxOutputTokens(withCheckpoint, maxOutputTokens));
}
