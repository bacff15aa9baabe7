import { describe, expect, it, vi } from 'vitest';
import type { DecodedStreamEvent, TurnEvent } from '../types/turn-event.js';
import { ConsumerStoppedError, type HandOverListener } from './event-channel.js';
import type { ReadSegmentOptions, SegmentFacts } from './read-segment.js';
import {
  batchedEvents,
  never,
  newState,
  options,
  pullAgain,
  pullEveryEvent,
  readSegmentFacts,
  recordingChannel,
  scriptedEvents,
  wireReads,
} from './read-segment.test-helper.js';

describe('readSegment aborts (R1.6: at once, one subscription per segment)', () => {
  it('ends at once on an abort while the next chunk is awaited, and closes the decoder', async () => {
    const state = newState();
    const wire = scriptedEvents();
    const facts = readSegmentFacts(options(state, wire.events, async () => undefined));
    await Promise.resolve();
    expect(wire.nextCalls()).toBe(1);
    state.stop({ by: 'consumer' });
    await expect(facts).resolves.toMatchObject({ end: 'aborted', outputConsumed: false });
    await vi.waitFor(() => expect(wire.returned).toHaveBeenCalledTimes(1));
    // The chunk that arrives late is never read into the facts nor handed over.
    wire.pending[0]!({ done: false, value: { type: 'text-delta', id: 't', delta: 'late' } });
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect((await facts).textProduced).toBe(false);
    expect(wire.nextCalls()).toBe(1);
  });

  it('ends at once on an abort while the host holds an event', async () => {
    const state = newState();
    const wire = scriptedEvents();
    const delivered: TurnEvent[] = [];
    const facts = readSegmentFacts(
      options(state, wire.events, (event) => {
        delivered.push(event);
        return never();
      }),
    );
    await Promise.resolve();
    wire.pending[0]!({ done: false, value: { type: 'text-delta', id: 't', delta: 'held' } });
    await vi.waitFor(() => expect(delivered).toHaveLength(1));
    state.stop({ by: 'host-signal', reason: 'user' });
    await expect(facts).resolves.toMatchObject({ end: 'aborted', textProduced: true });
  });

  it('subscribes to the stop once for a whole segment of events, and not at all after it ended', async () => {
    const state = newState();
    const onStop = vi.spyOn(state, 'onStop');
    const events: DecodedStreamEvent[] = [];
    for (let index = 0; index < 100; index += 1) events.push({ type: 'text-delta', id: 't', delta: `w${index} ` });
    events.push({ type: 'finish', finishReason: { unified: 'stop', raw: 'stop' } }, { type: 'stream-end', terminalFrameSeen: true });
    const source = (async function* () {
      yield* events;
    })();
    const facts = await readSegmentFacts(options(state, source, async () => undefined));
    expect(facts).toMatchObject({ end: 'terminal', terminalFrameSeen: true, nonWhitespaceText: true });
    expect(onStop).toHaveBeenCalledTimes(1);
  });

  it('an abort before the segment starts reads nothing', async () => {
    const state = newState();
    state.stop({ by: 'consumer' });
    const wire = scriptedEvents();
    await expect(readSegmentFacts(options(state, wire.events, async () => undefined))).resolves.toMatchObject({ end: 'aborted' });
    expect(wire.nextCalls()).toBe(0);
  });
});

describe('readSegment hands events over synchronously, never ahead of the host (issue 19, decision 0271)', () => {
  it('the next buffered event goes out inside the host’s pull, and nothing more is taken until the host pulls again', async () => {
    const state = newState();
    const wire = batchedEvents([
      { type: 'text-delta', id: 't', delta: 'a' },
      { type: 'text-delta', id: 't', delta: 'b' },
      { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' } },
      { type: 'stream-end', terminalFrameSeen: true },
    ]);
    const handed: Array<{ event: TurnEvent; listener: HandOverListener }> = [];
    const facts = readSegmentFacts({ ...options(state, wire.events, async () => undefined), channel: { handOver: (event, listener) => void handed.push({ event, listener }) } });
    await vi.waitFor(() => expect(handed).toHaveLength(1));
    // The host holds 'a': 'b' is still in the decoder's batch, not read into the facts.
    expect(wire.taken()).toBe(1);
    // Inside that pull: 'b' comes back from it, from the batch, with no second read.
    expect(handed[0]!.listener.resume()).toMatchObject({ type: 'text-delta', delta: 'b' });
    expect(wire.taken()).toBe(2);
    expect(wire.reads()).toBe(1);
    // The host pulls again after 'b': the terminal frame is read, nothing more goes out.
    expect(handed[0]!.listener.resume()).toBeUndefined();
    expect(handed).toHaveLength(1);
    await expect(facts).resolves.toMatchObject({ end: 'terminal', outputConsumed: true, finishReason: { unified: 'stop' } });
    expect(wire.reads()).toBe(1);
  });

  it('a host that stops instead of pulling again ends the segment as aborted', async () => {
    const state = newState();
    const wire = batchedEvents([{ type: 'text-delta', id: 't', delta: 'a' }, { type: 'text-delta', id: 't', delta: 'b' }]);
    let held: HandOverListener | undefined;
    const facts = readSegmentFacts({ ...options(state, wire.events, async () => undefined), channel: { handOver: (_event, listener) => void (held = listener) } });
    await vi.waitFor(() => expect(held).toBeDefined());
    held!.stop(new ConsumerStoppedError());
    await expect(facts).resolves.toMatchObject({ end: 'aborted', outputConsumed: false });
    expect(wire.taken()).toBe(1);
  });
});

describe('readSegment keeps the whole reasoning text for a recovery checkpoint (R4.3), joined in batches (issue 19)', () => {
  const reasoning = (count: number): DecodedStreamEvent[] =>
    Array.from({ length: count }, (_unused, index) => ({ type: 'reasoning-delta', id: 'r', delta: `step ${index}; ` }));
  const expected = (count: number): string => Array.from({ length: count }, (_unused, index) => `step ${index}; `).join('');

  it.each([1, 63, 64, 65, 200])('%i deltas, then a terminal frame: every delta, in order', async (count) => {
    const wire = batchedEvents([...reasoning(count), { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' } }, { type: 'stream-end', terminalFrameSeen: true }]);
    const facts = await readSegmentFacts({ ...options(newState(), wire.events, async () => undefined), channel: pullEveryEvent });
    expect(facts.end).toBe('terminal');
    expect(facts.reasoningText).toBe(expected(count));
  });

  it('a stream cut after 130 deltas (no terminal frame) keeps all 130', async () => {
    const wire = batchedEvents([...reasoning(130), { type: 'stream-end', terminalFrameSeen: false }]);
    const facts = await readSegmentFacts({ ...options(newState(), wire.events, async () => undefined), channel: pullEveryEvent });
    expect(facts.end).toBe('eof');
    expect(facts.reasoningText).toBe(expected(130));
  });

  it('an abort after 100 deltas keeps the 100 the host took', async () => {
    const state = newState();
    const wire = batchedEvents(reasoning(300));
    let handed = 0;
    const channel: ReadSegmentOptions['channel'] = {
      handOver: (_event, listener) => {
        handed += 1;
        if (handed === 100) queueMicrotask(() => state.stop({ by: 'consumer' }));
        else queueMicrotask(() => pullAgain(channel, listener));
      },
    };
    const facts = await readSegmentFacts({ ...options(state, wire.events, async () => undefined), channel });
    expect(facts.end).toBe('aborted');
    expect(facts.reasoningText).toBe(expected(100));
  });
});

describe('readSegment lets the reasoning go once no recovery can use it (R4.2, R4.3)', () => {
  const reasoning = (count: number): DecodedStreamEvent[] =>
    Array.from({ length: count }, (_unused, index) => ({ type: 'reasoning-delta', id: 'r', delta: `step ${index}; ` }));
  const cut: DecodedStreamEvent = { type: 'stream-end', terminalFrameSeen: false };
  const read = async (batches: DecodedStreamEvent[][], keepReasoning = true, reasoningMaxChars = 131_072) =>
    readSegmentFacts({ ...options(newState(), wireReads(batches).events, async () => undefined), channel: pullEveryEvent, keepReasoning, reasoningMaxChars });

  it('text after the reasoning: not held for the rest of the stream', async () => {
    const facts = await read([reasoning(70), [{ type: 'text-delta', id: 't', delta: 'answer' }], [{ type: 'text-delta', id: 't', delta: ' more' }, cut]]);
    expect(facts).toMatchObject({ textProduced: true, reasoningText: '' });
  });

  it('a tool call after the reasoning: the same', async () => {
    const call: DecodedStreamEvent = { type: 'tool-call-start', toolCallId: 'call_1', toolName: 'run' };
    const facts = await read([reasoning(70), [call], [cut]]);
    expect(facts).toMatchObject({ toolCallProduced: true, reasoningText: '' });
  });

  it('an empty text delta is not text: the reasoning stays for the checkpoint', async () => {
    const facts = await read([reasoning(3), [{ type: 'text-delta', id: 't', delta: '' }], [cut]]);
    expect(facts).toMatchObject({ textProduced: false, reasoningText: 'step 0; step 1; step 2; ' });
  });

  it('keepReasoning false (recovery off, or the recovery segment itself): none is kept', async () => {
    const facts = await read([reasoning(70), [cut]], false);
    expect(facts).toMatchObject({ end: 'eof', reasoningText: '' });
  });

  it('past the checkpoint limit (R4.7): kept only until it is longer than the limit, which settles checkpoint-too-large', async () => {
    const facts = await read([reasoning(200), [cut]], true, 100);
    // `step 0; ` … `step 12; `: the first delta that takes the text past 100 characters is the last kept.
    expect(facts.reasoningText).toBe(Array.from({ length: 13 }, (_unused, index) => `step ${index}; `).join(''));
    expect(facts.reasoningText.length).toBeGreaterThan(100);
  });

  it('blank reasoning past the limit is kept until a non-blank delta, so the decision is not "no-reasoning"', async () => {
    const blank = Array.from({ length: 50 }, (): DecodedStreamEvent => ({ type: 'reasoning-delta', id: 'r', delta: '   ' }));
    const facts = await read([[...blank, { type: 'reasoning-delta', id: 'r', delta: 'x' }, ...reasoning(5)], [cut]], true, 100);
    expect(facts.reasoningText).toBe(`${' '.repeat(150)}x`);
  });
});

describe('readSegment times output by wire read (R5.4: time to first output, decode window; issue 19)', () => {
  const text = (delta: string): DecodedStreamEvent => ({ type: 'text-delta', id: 't', delta });

  it('first output is the read that brought the first content, last output the read that brought the last', async () => {
    const clock = { at: 0 };
    const now = vi.fn(() => clock.at);
    const readAt = [50, 100, 250, 400];
    const wire = wireReads(
      [[{ type: 'text-start', id: 't' }], [text('a'), text('b'), text('c'), text('d')], [text('e')], [{ type: 'finish', finishReason: { unified: 'stop', raw: 'stop' } }, { type: 'stream-end', terminalFrameSeen: true }]],
      (read) => (clock.at = readAt[read]!),
    );
    const facts = await readSegmentFacts({ ...options(newState(), wire.events, async () => undefined), channel: pullEveryEvent, now });
    expect(facts).toMatchObject({ end: 'terminal', firstOutputAt: 100, lastOutputAt: 250 });
    // One clock read when the segment starts and one per wire read (4), none per event (6).
    expect(now).toHaveBeenCalledTimes(5);
  });

  it('a segment with no content has no output times', async () => {
    const clock = { at: 0 };
    const wire = wireReads([[{ type: 'text-start', id: 't' }, text('')], [{ type: 'stream-end', terminalFrameSeen: false }]], (read) => (clock.at = [10, 20][read]!));
    const facts = await readSegmentFacts({ ...options(newState(), wire.events, async () => undefined), now: () => clock.at });
    expect(facts).toMatchObject({ end: 'eof', firstOutputAt: undefined, lastOutputAt: undefined });
  });
});

describe('readSegment records what each event type tells (R4.1, R4.5; issue 19)', () => {
  const finished: DecodedStreamEvent[] = [{ type: 'finish', finishReason: { unified: 'stop', raw: 'stop' } }, { type: 'stream-end', terminalFrameSeen: true }];
  it('an event type this version does not know is skipped: not handed over, not output', async () => {
    const future = { type: 'citation-delta', id: 'c', delta: 'ref' } as unknown as DecodedStreamEvent;
    const { channel, handed } = recordingChannel();
    const facts = await readSegmentFacts({ ...options(newState(), batchedEvents([future, { type: 'stream-end', terminalFrameSeen: false }]).events, async () => undefined), channel, now: () => 7 });
    expect(handed).toEqual([]);
    expect(facts).toMatchObject({ end: 'eof', outputConsumed: false, textProduced: false, firstOutputAt: undefined });
  });

  it('a recovery segment’s tool call is output (R4.1) that never reaches the host (R4.5)', async () => {
    const call: DecodedStreamEvent[] = [
      { type: 'tool-call-start', toolCallId: 'c1', toolName: 'run' },
      { type: 'tool-call-delta', toolCallId: 'c1', delta: '{}' },
      { type: 'tool-call-end', toolCallId: 'c1', toolName: 'run', input: '{}' },
    ];
    const { channel, handed } = recordingChannel();
    const wire = batchedEvents([{ type: 'text-start', id: 't' }, ...call, { type: 'text-delta', id: 't', delta: 'done' }, ...finished]);
    const facts = await readSegmentFacts({ ...options(newState(), wire.events, async () => undefined), channel, forwardToolCalls: false, now: () => 7 });
    expect(handed.map((event) => event.type)).toEqual(['text-start', 'text-delta']);
    expect(facts).toMatchObject({ end: 'terminal', toolCallProduced: true, firstOutputAt: 7 });
  });

  it('empty deltas are not content and whitespace is not visible text', async () => {
    const { channel, handed } = recordingChannel();
    const wire = batchedEvents([
      { type: 'text-start', id: 't' },
      { type: 'text-delta', id: 't', delta: '' },
      { type: 'reasoning-delta', id: 'r', delta: '' },
      { type: 'stream-end', terminalFrameSeen: false },
    ]);
    const facts = await readSegmentFacts({ ...options(newState(), wire.events, async () => undefined), channel });
    // No content: the block start and the empty deltas stay held, and are dropped with the segment.
    expect(handed).toEqual([]);
    expect(facts).toMatchObject({ end: 'eof', textProduced: false, outputConsumed: false });

    const whitespace = recordingChannel();
    const spaced = batchedEvents([{ type: 'text-start', id: 't' }, { type: 'text-delta', id: 't', delta: ' \n' }, ...finished]);
    const spacedFacts = await readSegmentFacts({ ...options(newState(), spaced.events, async () => undefined), channel: whitespace.channel });
    expect(whitespace.handed.map((event) => event.type)).toEqual(['text-start', 'text-delta']);
    expect(spacedFacts).toMatchObject({ end: 'terminal', textProduced: true, nonWhitespaceText: false, outputConsumed: true });
  });

  it('a redacted reasoning block is content on its own: handed over, and output', async () => {
    const { channel, handed } = recordingChannel();
    const wire = batchedEvents([{ type: 'reasoning-start', id: 'r', redacted: true }, { type: 'stream-end', terminalFrameSeen: false }]);
    const facts = await readSegmentFacts({ ...options(newState(), wire.events, async () => undefined), channel, now: () => 7 });
    expect(handed.map((event) => event.type)).toEqual(['reasoning-start']);
    expect(facts).toMatchObject({ end: 'eof', outputConsumed: true, firstOutputAt: 7 });
  });
});
