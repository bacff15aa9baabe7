import type { Message, ToolMessage } from '../types/message.js';
import type { ToolCallPart } from '../types/tool-call-part.js';
import type { ToolResultPart } from '../types/tool-result-part.js';
import { isEmptyAssistantMessage } from './assemble-assistant-message.js';
import { createSyntheticToolResult, MISSING_TOOL_RESULT } from './loop-messages.js';

/**
 * R3.7: the messages actually sent, normalised so no orphan reaches the
 * provider (a broken pairing makes every later request fail with 400):
 * - `isApiErrorMessage` pseudo messages are not model output (R2.2): dropped;
 * - fully empty assistant turns are dropped (R3.5);
 * - every tool call gets exactly one tool result, in a tool message right
 *   after its assistant message, in call order — a missing one is
 *   synthesised as an error result;
 * - tool results with no earlier tool call, and duplicates, are dropped.
 *
 * A tool message that already holds exactly the right results in the right
 * order is kept as the same object, so its provider fields survive.
 */
export function normalizeOutgoingMessages(messages: readonly Message[]): Message[] {
  const kept = messages.filter(
    (message) => !(message.role === 'assistant' && (message.isApiErrorMessage === true || isEmptyAssistantMessage(message))),
  );
  const resultsByCall = pairResultsWithCalls(kept);
  const output: Message[] = [];
  for (let index = 0; index < kept.length; index += 1) {
    const message = kept[index]!;
    if (message.role === 'tool') continue;
    output.push(message);
    if (message.role !== 'assistant') continue;
    const calls = message.content.filter((part): part is ToolCallPart => part.type === 'tool-call');
    if (calls.length === 0) continue;
    const results = calls.map((call) => resultsByCall.get(call) ?? createSyntheticToolResult(call, MISSING_TOOL_RESULT));
    output.push(reuseOrBuildToolMessage(kept[index + 1], results));
  }
  return output;
}

/**
 * Each result goes to the most recent earlier call with its id that has no
 * result yet. Pairing by call, not by id: some compatible servers reuse ids
 * such as `call_0` across turns, and a global id map would hand the first
 * turn's result to every later call with that id.
 */
function pairResultsWithCalls(messages: readonly Message[]): Map<ToolCallPart, ToolResultPart> {
  const openCallsById = new Map<string, ToolCallPart[]>();
  const paired = new Map<ToolCallPart, ToolResultPart>();
  for (const message of messages) {
    for (const part of message.content) {
      if (part.type === 'tool-call') {
        const open = openCallsById.get(part.toolCallId);
        if (open === undefined) openCallsById.set(part.toolCallId, [part]);
        else open.push(part);
      } else if (part.type === 'tool-result') {
        // No open call: an orphan or a duplicate result, dropped.
        const call = openCallsById.get(part.toolCallId)?.pop();
        if (call !== undefined) paired.set(call, part);
      }
    }
  }
  return paired;
}

function reuseOrBuildToolMessage(next: Message | undefined, results: ToolResultPart[]): ToolMessage {
  if (
    next?.role === 'tool' &&
    next.content.length === results.length &&
    next.content.every((part, index) => part === results[index])
  ) {
    return next;
  }
  return { role: 'tool', content: results };
}
