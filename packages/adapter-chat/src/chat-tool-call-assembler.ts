import type { TurnEvent } from '@turnguard/core';
import { isRecord } from './chat-wire-hints.js';

interface AssembledToolCall {
  index: number | undefined;
  id: string;
  name: string;
  input: string;
  started: boolean;
  ended: boolean;
}

/**
 * Joins streamed `delta.tool_calls` fragments into calls (R7.2).
 *
 * Fragments are joined by `index` (openai-node ChatCompletionStream
 * `tool_calls[index]`). Servers differ (wire-formats §1.2):
 * - Alibaba repeats `"id":""` on later fragments (alibaba-tool-call.chunks.txt): an empty id is no id;
 * - Mistral sends a whole call with no `index` (mistral-tool-call.chunks.txt): fall back to `id`,
 *   as codex does (codex-rs/codex-api/src/sse/chat.rs);
 * - a fragment with a different non-empty id at a used index starts a new call.
 * `tool-call-start` waits until both id and name are known; arguments seen
 * before that are sent as one delta right after the start.
 */
export class ChatToolCallAssembler {
  private readonly calls: AssembledToolCall[] = [];

  /** True once any fragment arrived, even an unfinished call (R4.1 "not even an unfinished one"). */
  get hasCalls(): boolean {
    return this.calls.length > 0;
  }

  addFragment(fragment: unknown): TurnEvent[] {
    if (!isRecord(fragment)) return [];
    const call = this.findOrCreateCall(fragment);
    const inner = isRecord(fragment.function) ? fragment.function : isRecord(fragment.custom) ? fragment.custom : {};
    if (call.id === '' && typeof fragment.id === 'string') call.id = fragment.id;
    if (call.name === '' && typeof inner.name === 'string') call.name = inner.name;
    const inputFragment = typeof inner.arguments === 'string' ? inner.arguments : typeof inner.input === 'string' ? inner.input : '';

    const events: TurnEvent[] = [];
    if (!call.started) {
      call.input += inputFragment;
      if (call.id !== '' && call.name !== '') events.push(...this.startCall(call));
    } else if (inputFragment !== '') {
      call.input += inputFragment;
      events.push({ type: 'tool-call-delta', toolCallId: call.id, delta: inputFragment });
    }
    return events;
  }

  /**
   * On the terminal frame: every call that has a name ends, with its whole
   * input. A call whose id never came gets a stable generated one.
   */
  endCalls(): TurnEvent[] {
    const events: TurnEvent[] = [];
    this.calls.forEach((call, position) => {
      if (call.ended || call.name === '') return;
      if (!call.started) {
        if (call.id === '') call.id = `call_turnguard_${position}`;
        events.push(...this.startCall(call));
      }
      call.ended = true;
      events.push({ type: 'tool-call-end', toolCallId: call.id, toolName: call.name, input: call.input });
    });
    return events;
  }

  private startCall(call: AssembledToolCall): TurnEvent[] {
    call.started = true;
    const events: TurnEvent[] = [{ type: 'tool-call-start', toolCallId: call.id, toolName: call.name }];
    if (call.input !== '') events.push({ type: 'tool-call-delta', toolCallId: call.id, delta: call.input });
    return events;
  }

  private findOrCreateCall(fragment: Record<string, unknown>): AssembledToolCall {
    const index = typeof fragment.index === 'number' ? fragment.index : undefined;
    const id = typeof fragment.id === 'string' && fragment.id !== '' ? fragment.id : undefined;
    let existing: AssembledToolCall | undefined;
    if (index !== undefined) {
      existing = [...this.calls].reverse().find((call) => call.index === index);
      if (existing !== undefined && id !== undefined && existing.id !== '' && existing.id !== id) existing = undefined;
    } else if (id !== undefined) {
      existing = this.calls.find((call) => call.id === id);
    } else {
      existing = this.calls.at(-1);
    }
    if (existing !== undefined) return existing;
    const created: AssembledToolCall = { index, id: '', name: '', input: '', started: false, ended: false };
    this.calls.push(created);
    return created;
  }
}
