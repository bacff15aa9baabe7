import { describe, expect, it } from 'vitest';
import type { DecodedStreamEvent } from '@turnguard/core';
import { decodeMessagesStream } from './messages-stream-decoder.js';
import { collectEvents, frameRecordedLines, readRecordedStreams, streamOfText, type RecordedStream } from '@turnguard/testkit';
import { createSeededRandom } from './testing/seeded-random.js';

/** What the recording itself carries, computed from its lines (never typed by hand). */
function expectationsOf(recording: RecordedStream) {
  const records = recording.lines.map((line) => JSON.parse(line) as Record<string, any>);
  let text = '';
  let reasoning = '';
  let signature: string | undefined;
  const toolInputs = new Map<string, string>();
  const toolIdByIndex = new Map<number, string>();
  let stopReason: string | undefined;
  const usage: Record<string, unknown> = {};
  for (const record of records) {
    if (record.type === 'message_start') Object.assign(usage, record.message.usage);
    if (record.type === 'content_block_start') {
      const block = record.content_block;
      if (block.type === 'text') text += block.text;
      if (block.type === 'tool_use') {
        toolIdByIndex.set(record.index, block.id);
        toolInputs.set(block.id, '');
      }
    }
    if (record.type === 'content_block_delta') {
      const delta = record.delta;
      if (delta.type === 'text_delta') text += delta.text;
      if (delta.type === 'thinking_delta') reasoning += delta.thinking;
      if (delta.type === 'signature_delta') signature = delta.signature;
      if (delta.type === 'input_json_delta') {
        const id = toolIdByIndex.get(record.index) as string;
        toolInputs.set(id, (toolInputs.get(id) ?? '') + delta.partial_json);
      }
    }
    if (record.type === 'message_delta') {
      stopReason = record.delta.stop_reason;
      for (const [key, value] of Object.entries(record.usage ?? {})) if (value !== null) usage[key] = value;
    }
  }
  // No-argument tools stream `partial_json: ""` only; that is the object `{}` (SDK, wire-formats §2.2).
  for (const [id, input] of toolInputs) if (input === '') toolInputs.set(id, '{}');
  return { text, reasoning, signature, toolInputs, stopReason, usage };
}

function summarise(events: DecodedStreamEvent[]) {
  const toolInputs = new Map<string, string>();
  let signature: string | undefined;
  for (const event of events) {
    if (event.type === 'tool-call-end') toolInputs.set(event.toolCallId, event.input);
    if (event.type === 'reasoning-end' && event.signature !== undefined) signature = event.signature;
  }
  const usages = events.flatMap((event) => (event.type === 'usage' ? [event.usage] : []));
  return {
    text: events.map((event) => (event.type === 'text-delta' ? event.delta : '')).join(''),
    reasoning: events.map((event) => (event.type === 'reasoning-delta' ? event.delta : '')).join(''),
    toolDeltas: events.map((event) => (event.type === 'tool-call-delta' ? event.delta : '')).join(''),
    signature,
    toolInputs,
    finishes: events.flatMap((event) => (event.type === 'finish' ? [event.finishReason] : [])),
    lastUsage: usages.at(-1),
    errors: events.filter((event) => event.type === 'error'),
    metadata: events.filter((event) => event.type === 'response-metadata'),
    end: events.at(-1),
  };
}

const fixtures = readRecordedStreams('messages');

/** R4.1: `toolCallSeen` is reported exactly when the kept lines started a tool-use block of any kind (read from the recording). */
function expectedStreamEnd(terminalFrameSeen: boolean, lines: readonly string[]) {
  const toolCallSeen = lines.some((line) => {
    const payload = JSON.parse(line) as { type?: string; content_block?: { type?: string } };
    return payload.type === 'content_block_start' && (payload.content_block?.type ?? '').endsWith('tool_use');
  });
  return toolCallSeen ? { type: 'stream-end', terminalFrameSeen, toolCallSeen } : { type: 'stream-end', terminalFrameSeen };
}

describe('recorded Messages streams replay faithfully (R7.2)', () => {
  it('finds every recording', () => {
    expect(fixtures.map((fixture) => fixture.name)).toEqual([
      'anthropic-clear-thinking.1',
      'anthropic-json-tool.1',
      'anthropic-message-delta-input-tokens',
      'anthropic-refusal',
      'anthropic-text',
      'anthropic-tool-no-args',
      'duplicate-message-start',
    ]);
  });

  describe.each(fixtures)('$name', (recording) => {
    const wire = frameRecordedLines('messages', recording.lines);
    const expected = expectationsOf(recording);

    it('yields the recorded text, thinking, signature, tool arguments, finish and usage', async () => {
      const summary = summarise(await collectEvents(decodeMessagesStream(streamOfText(wire))));
      expect(summary.text).toBe(expected.text);
      expect(summary.reasoning).toBe(expected.reasoning);
      expect(summary.signature).toBe(expected.signature);
      expect(summary.toolInputs).toEqual(expected.toolInputs);
      expect(summary.finishes).toHaveLength(1);
      expect(summary.finishes[0]?.raw).toBe(expected.stopReason);
      expect(summary.errors).toEqual([]);
      // R5.1: the last usage holds the recording's final counters, unknown ones stay undefined.
      const usage = expected.usage as Record<string, number | undefined>;
      const known = (...counts: Array<number | undefined>) => (counts.some((count) => count === undefined) ? undefined : counts);
      const totalParts = known(usage['input_tokens'], usage['output_tokens']);
      const thinking = (expected.usage as { output_tokens_details?: { thinking_tokens?: number } }).output_tokens_details?.thinking_tokens;
      expect(summary.lastUsage).toEqual({
        inputTokens: usage['input_tokens'],
        outputTokens: usage['output_tokens'],
        cachedInputTokens: usage['cache_read_input_tokens'],
        cacheCreationInputTokens: usage['cache_creation_input_tokens'],
        reasoningTokens: thinking,
        // Derived only when input and output are both known; reported cache counters add to it (convert-messages-usage.ts).
        totalTokens:
          totalParts === undefined
            ? undefined
            : totalParts[0]! + totalParts[1]! + (usage['cache_read_input_tokens'] ?? 0) + (usage['cache_creation_input_tokens'] ?? 0),
      });
      // The duplicate message_start quirk must not produce a second metadata event.
      expect(summary.metadata).toHaveLength(1);
      expect(summary.end).toEqual(expectedStreamEnd(true, recording.lines));
    });

    // R8.13: the message_delta that carries the stop_reason is the terminal frame; only a cut before it is a cut.
    const terminalLine = recording.lines.findIndex((line) => (JSON.parse(line) as { type?: string; delta?: { stop_reason?: unknown } }).type === 'message_delta' && typeof (JSON.parse(line) as { delta?: { stop_reason?: unknown } }).delta?.stop_reason === 'string');

    it('reports no terminal frame when cut before the stop_reason, and never throws', async () => {
      expect(terminalLine).toBeGreaterThan(0);
      for (let kept = 0; kept < recording.lines.length; kept += 1) {
        const events = await collectEvents(decodeMessagesStream(streamOfText(frameRecordedLines('messages', recording.lines.slice(0, kept)))));
        const complete = kept > terminalLine;
        expect(events.at(-1), `cut after ${kept} lines`).toEqual(expectedStreamEnd(complete, recording.lines.slice(0, kept)));
        expect(events.some((event) => event.type === 'finish'), `cut after ${kept} lines`).toBe(complete);
      }
    });

    it('a last message_stop not closed by its blank line is dropped; the stop_reason before it already ended the message (R8.13)', async () => {
      const events = await collectEvents(decodeMessagesStream(streamOfText(wire.slice(0, -1))));
      expect(events.at(-1)).toMatchObject({ type: 'stream-end', terminalFrameSeen: true });
      expect(events.filter((event) => event.type === 'finish')).toHaveLength(1);
    });

    it('gives identical events for random byte splits (UTF-8 characters included)', async () => {
      const whole = await collectEvents(decodeMessagesStream(streamOfText(wire)));
      const byteLength = new TextEncoder().encode(wire).length;
      for (let seed = 1; seed <= 25; seed += 1) {
        const random = createSeededRandom(seed);
        const cuts = Array.from({ length: 1 + Math.floor(random() * 40) }, () => Math.floor(random() * byteLength));
        const split = await collectEvents(decodeMessagesStream(streamOfText(wire, cuts)));
        expect(split, `seed ${seed}`).toEqual(whole);
      }
    });
  });
});
