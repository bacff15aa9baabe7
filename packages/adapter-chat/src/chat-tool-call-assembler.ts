import type { DecodedStreamEvent, TurnEvent } from '@turnguard/core';
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
    const events: TurnEvent[] = [];
    this.pushFragmentEvents(fragment, events);
    return events;
  }

  /**
   * `addFragment` without allocating: appends the fragment's events to
   * `events` (the decoder's per-read batch) and returns true when they
   * include a `tool-call-start`.
   */
  pushFragmentEvents(fragment: unknown, events: DecodedStreamEvent[]): boolean {
    if (!isRecord(fragment)) return false;
    const call = this.findOrCreateCall(fragment);
    const inner = isRecord(fragment.function) ? fragment.function : isRecord(fragment.custom) ? fragment.custom : undefined;
    if (call.id === '' && typeof fragment.id === 'string') call.id = fragment.id;
    if (call.name === '' && typeof inner?.name === 'string') call.name = inner.name;
    const inputFragment = typeof inner?.arguments === 'string' ? inner.arguments : typeof inner?.input === 'string' ? inner.input : '';

    if (!call.started) {
      call.input += inputFragment;
      if (call.id === '' || call.name === '') return false;
      this.startCall(call, events);
      return true;
    }
    if (inputFragment !== '') {
      call.input += inputFragment;
      events.push({ type: 'tool-call-delta', toolCallId: call.id, delta: inputFragment });
    }
    return false;
  }

  /**
   * On the terminal frame: every call that has a name ends, with its whole
   * input. A call whose id never came gets a stable generated one.
   */
  endCalls(): TurnEvent[] {
    const events: TurnEvent[] = [];
    this.pushEndEvents(events);
    return events;
  }

  /** `endCalls` appending to the caller's events array. */
  pushEndEvents(events: DecodedStreamEvent[]): void {
    for (let position = 0; position < this.calls.length; position += 1) {
      const call = this.calls[position]!;
      if (call.ended || call.name === '') continue;
      if (!call.started) {
        if (call.id === '') call.id = `call_turnguard_${position}`;
        this.startCall(call, events);
      }
      call.ended = true;
      events.push({ type: 'tool-call-end', toolCallId: call.id, toolName: call.name, input: call.input });
    }
  }

  private startCall(call: AssembledToolCall, events: DecodedStreamEvent[]): void {
    call.started = true;
    events.push({ type: 'tool-call-start', toolCallId: call.id, toolName: call.name });
    if (call.input !== '') events.push({ type: 'tool-call-delta', toolCallId: call.id, delta: call.input });
  }

  private findOrCreateCall(fragment: Record<string, unknown>): AssembledToolCall {
    const index = typeof fragment.index === 'number' ? fragment.index : undefined;
    const id = typeof fragment.id === 'string' && fragment.id !== '' ? fragment.id : undefined;
    let existing: AssembledToolCall | undefined;
    if (index !== undefined) {
      // The latest call at this index (a new id there started a new call); no copy of the list per fragment.
      for (let position = this.calls.length - 1; position >= 0 && existing === undefined; position -= 1) {
        if (this.calls[position]!.index === index) existing = this.calls[position];
      }
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
