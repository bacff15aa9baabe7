import type { Message, ToolMessage } from '../types/message.js';
import type { ToolCallPart } from '../types/tool-call-part.js';
import type { ToolResultPart } from '../types/tool-result-part.js';
import { isEmptyAssistantMessage } from './assemble-assistant-message.js';
import { createSyntheticToolResult, MISSING_TOOL_RESULT } from './loop-messages.js';

/**
 * R3.7: the messages actually sent, normalised so no orphan reaches the
 * provider (a broken pairing makes every later request fail with 400,
 * seeds/002 §9):
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
  const resultsById = collectFirstResults(kept);
  const output: Message[] = [];
  for (let index = 0; index < kept.length; index += 1) {
    const message = kept[index]!;
    if (message.role === 'tool') continue;
    output.push(message);
    if (message.role !== 'assistant') continue;
    const calls = message.content.filter((part): part is ToolCallPart => part.type === 'tool-call');
    if (calls.length === 0) continue;
    const results = calls.map((call) => resultsById.get(call.toolCallId) ?? createSyntheticToolResult(call, MISSING_TOOL_RESULT));
    output.push(reuseOrBuildToolMessage(kept[index + 1], results));
  }
  return output;
}

/** The first result of each tool call that comes after the call (and is not a duplicate). */
function collectFirstResults(messages: readonly Message[]): Map<string, ToolResultPart> {
  const called = new Set<string>();
  const results = new Map<string, ToolResultPart>();
  for (const message of messages) {
    for (const part of message.content) {
      if (part.type === 'tool-call') called.add(part.toolCallId);
      else if (part.type === 'tool-result' && called.has(part.toolCallId) && !results.has(part.toolCallId)) {
        results.set(part.toolCallId, part);
      }
    }
  }
  return results;
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
