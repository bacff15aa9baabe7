import type { Message } from '../types/message.js';
import { describePairingAround, findOrphanToolResults, findUnpairedToolCalls } from './pairing-diagnostic.js';
import type { TurnError } from './turn-error.js';

const ID = '([A-Za-z0-9_.:-]+)';

/**
 * Each provider's wording of a tool_use/tool_result pairing 400 (R2.3), with
 * the offending id where the wording names one (wire-formats §6.1;
 * OpenAI Chat and Responses wordings as their APIs return them):
 * - Anthropic: "`tool_use` ids were found without `tool_result` blocks
 *   immediately after: toolu_…", "unexpected `tool_use_id` found in
 *   `tool_result` blocks: toolu_…", older "Did not find 1 tool_result block(s)";
 * - Chat: "The following tool_call_ids did not have response messages: call_…",
 *   "messages with role 'tool' must be a response to a preceeding message with 'tool_calls'";
 * - Responses: "No tool output found for function call call_…",
 *   "No tool call found for function call output with call_id call_…".
 */
const PAIRING_WORDINGS: readonly RegExp[] = [
  new RegExp(`tool_use\`? ids were found without \`?tool_result\`? blocks immediately after:?\\s*${ID}`, 'i'),
  new RegExp(`unexpected \`?tool_use_id\`? found in \`?tool_result\`? blocks:?\\s*${ID}`, 'i'),
  /did not find \d+ tool_result block/i,
  new RegExp(`tool_call_ids did not have response messages:?\\s*${ID}`, 'i'),
  /role '?tool'? must be a response to a prece+ding message with '?tool_calls'?/i,
  new RegExp(`no tool output found for (?:function|custom tool) call\\s+${ID}`, 'i'),
  new RegExp(`no tool call found for (?:function|custom tool) call output with call_id\\s+${ID}`, 'i'),
];

/** The pairing rejection an error message words, and the id it names (if any); `undefined` when it is not one. */
export function readPairingRejection(message: string): { toolCallId: string | undefined } | undefined {
  for (const wording of PAIRING_WORDINGS) {
    const match = wording.exec(message);
    if (match !== null) return { toolCallId: match[1]?.replace(/[.…]+$/, '') };
  }
  return undefined;
}

/**
 * R2.3: a 400 that rejects the tool pairing gets `details.pairing`, the
 * `role:type:id` tokens around the offending id (never content), and
 * `details.pairingToolCallId`. Without a named id (or one not in the
 * messages), the first unpaired tool call or orphan result is the anchor.
 * `readMessages` runs only for such an error. Any other error is returned as is.
 */
export function attachPairingDiagnostic(error: TurnError, readMessages: () => readonly Message[]): TurnError {
  if (error.status !== 400) return error;
  const rejection = readPairingRejection(error.message);
  if (rejection === undefined) return error;
  let messages: readonly Message[];
  try {
    messages = readMessages();
  } catch {
    return error;
  }
  const anchors = [rejection.toolCallId, ...findUnpairedToolCalls(messages), ...findOrphanToolResults(messages)];
  for (const anchor of anchors) {
    if (anchor === undefined) continue;
    const pairing = describePairingAround(messages, anchor);
    if (pairing.length > 0) return error.with({ details: { ...error.details, pairing, pairingToolCallId: anchor } });
  }
  return error.with({ details: { ...error.details, pairing: [] } });
}

/** The pairing tokens of an error, when it carries them. */
export function readPairingTokens(error: TurnError): readonly string[] | undefined {
  const pairing = error.details['pairing'];
  return Array.isArray(pairing) && pairing.every((token) => typeof token === 'string') ? pairing : undefined;
}
