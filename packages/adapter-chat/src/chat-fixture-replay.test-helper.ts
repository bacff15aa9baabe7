/**
 * Test-only helpers for the recorded Chat streams (read and framed by
 * @turnguard/testkit's readRecordedStreams / frameRecordedLines): compute what
 * each recording carries straight from its lines, independently of the decoder
 * under test, and split its bytes at seeded random offsets.
 */
import type { DecodedStreamEvent } from '@turnguard/core';

/** Splits bytes at seeded pseudo-random offsets (hand-split chunks, openai-node line decoder tests). */
export function splitBytesRandomly(bytes: Uint8Array, seed: number, maxPiece = 97): Uint8Array[] {
  let state = seed >>> 0 || 1;
  const nextRandom = (): number => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 0x1_0000_0000;
  };
  const pieces: Uint8Array[] = [];
  let offset = 0;
  while (offset < bytes.length) {
    const size = 1 + Math.floor(nextRandom() * maxPiece);
    pieces.push(bytes.slice(offset, offset + size));
    offset += size;
  }
  return pieces;
}

export interface RecordingContent {
  text: string;
  reasoning: string;
  /** Tool arguments per call, keyed by `index`, or `id` when a server leaves `index` out. */
  toolInputs: Map<string, { name: string; input: string }>;
  finishReason: string | undefined;
  usage: Record<string, unknown> | undefined;
  /** Index of the line carrying the finish_reason. */
  terminalLine: number | undefined;
}

/** What a recording carries, read from its lines (choice 0). */
export function readRecordingContent(lines: readonly string[]): RecordingContent {
  const content: RecordingContent = { text: '', reasoning: '', toolInputs: new Map(), finishReason: undefined, usage: undefined, terminalLine: undefined };
  lines.forEach((line, lineIndex) => {
    const chunk = JSON.parse(line) as { choices?: Array<Record<string, any>>; usage?: Record<string, unknown> | null };
    if (chunk.usage) content.usage = chunk.usage;
    const choice = chunk.choices?.find((entry) => (entry.index ?? 0) === 0);
    if (!choice) return;
    const delta = choice.delta ?? {};
    if (typeof delta.content === 'string') content.text += delta.content;
    const reasoning = delta.reasoning_content ?? delta.reasoning;
    if (typeof reasoning === 'string') content.reasoning += reasoning;
    for (const fragment of delta.tool_calls ?? []) {
      const key = String(fragment.index ?? fragment.id);
      const entry = content.toolInputs.get(key) ?? { name: '', input: '' };
      if (fragment.function?.name) entry.name = fragment.function.name;
      entry.input += fragment.function?.arguments ?? '';
      content.toolInputs.set(key, entry);
    }
    if (typeof choice.finish_reason === 'string' && content.terminalLine === undefined) {
      content.finishReason = choice.finish_reason;
      content.terminalLine = lineIndex;
    }
  });
  return content;
}

/** Joined text, reasoning and tool inputs from decoded events. */
export function joinDecodedContent(events: readonly DecodedStreamEvent[]): {
  text: string;
  reasoning: string;
  toolCalls: Array<{ name: string; input: string; deltas: string }>;
} {
  let text = '';
  let reasoning = '';
  const deltas = new Map<string, string>();
  const toolCalls: Array<{ name: string; input: string; deltas: string }> = [];
  for (const event of events) {
    if (event.type === 'text-delta') text += event.delta;
    if (event.type === 'reasoning-delta') reasoning += event.delta;
    if (event.type === 'tool-call-delta') deltas.set(event.toolCallId, (deltas.get(event.toolCallId) ?? '') + event.delta);
    if (event.type === 'tool-call-end') toolCalls.push({ name: event.toolName, input: event.input, deltas: deltas.get(event.toolCallId) ?? '' });
  }
  return { text, reasoning, toolCalls };
}
