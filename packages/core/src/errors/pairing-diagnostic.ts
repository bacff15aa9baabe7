import type { Message } from '../types/message.js';

const MAX_ID_LENGTH = 64;

/**
 * R2.3: the shape of the conversation around a tool call id that a provider
 * rejected for broken tool_use/tool_result pairing, as `role:type:id` tokens,
 * one per content part (`assistant:tool-call:toolu_1`, `tool:tool-result:toolu_1`,
 * `user:text:-`) — never content (R4.10).
 *
 * The window is `radius` messages on each side of the first message that
 * holds the id (as a tool call, else as a tool result). A message without
 * parts yields `role:empty:-`. An id found nowhere yields `[]`: that itself
 * says the id was not in the messages sent.
 */
export function describePairingAround(messages: readonly Message[], toolCallId: string, radius = 3): string[] {
  let anchor = messages.findIndex((message) =>
    message.content.some((part) => part.type === 'tool-call' && part.toolCallId === toolCallId),
  );
  if (anchor === -1) {
    anchor = messages.findIndex((message) =>
      message.content.some((part) => part.type === 'tool-result' && part.toolCallId === toolCallId),
    );
  }
  if (anchor === -1) return [];

  const span = Math.max(0, Math.floor(radius));
  const window = messages.slice(Math.max(0, anchor - span), anchor + span + 1);
  return window.flatMap(describeMessageShape);
}

function describeMessageShape(message: Message): string[] {
  if (message.content.length === 0) return [`${message.role}:empty:-`];
  return message.content.map((part) => {
    const id = part.type === 'tool-call' || part.type === 'tool-result' ? part.toolCallId.slice(0, MAX_ID_LENGTH) : '-';
    return `${message.role}:${part.type}:${id}`;
  });
}

/**
 * Tool-call ids that have no tool result in a LATER message, in order of
 * first appearance, each once. Input for pairing repair (R3.7): every tool
 * call sent must get a result before the next request.
 */
export function findUnpairedToolCalls(messages: readonly Message[]): string[] {
  const unpaired = new Set<string>();
  for (const message of messages) {
    for (const part of message.content) {
      if (part.type === 'tool-call') unpaired.add(part.toolCallId);
      else if (part.type === 'tool-result') unpaired.delete(part.toolCallId);
    }
  }
  return [...unpaired];
}

/**
 * Tool-result ids with no EARLIER tool call: orphans a provider rejects
 * (Anthropic: "unexpected tool_use_id found in tool_result blocks"), which
 * pairing repair (R3.7) must drop before sending. In order, each once.
 */
export function findOrphanToolResults(messages: readonly Message[]): string[] {
  const called = new Set<string>();
  const orphans = new Set<string>();
  for (const message of messages) {
    for (const part of message.content) {
      if (part.type === 'tool-call') called.add(part.toolCallId);
      else if (part.type === 'tool-result' && !called.has(part.toolCallId)) orphans.add(part.toolCallId);
    }
  }
  return [...orphans];
}
