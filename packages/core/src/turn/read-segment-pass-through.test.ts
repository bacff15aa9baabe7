import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { DecodedStreamEvent, TurnEvent } from '../types/turn-event.js';
import type { ReadSegmentOptions, SegmentFacts } from './read-segment.js';
import { SegmentRecorder } from './segment-recorder.js';
import { newState, options, readSegmentFacts, recordingChannel, wireReads } from './read-segment.test-helper.js';

// Issue 19, decision 0301: once output was consumed, the host's pull hands a
// delta straight out, with no pass through `take`. It must change nothing the
// full path would have done: the events the host gets, their ids, and every
// fact of the segment (R4.1–R4.5, R5.4, R8.2).

const finished: DecodedStreamEvent[] = [
  { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' } },
  { type: 'stream-end', terminalFrameSeen: true },
];
const text = (delta: string): DecodedStreamEvent => ({ type: 'text-delta', id: 't', delta });

interface Reading {
  facts: SegmentFacts;
  handed: TurnEvent[];
}

/** Reads `batches` (one wire read each, read k at time 100·(k+1)) with a host that pulls again at once. */
async function readBatches(batches: DecodedStreamEvent[][], overrides: Partial<ReadSegmentOptions> = {}): Promise<Reading> {
  const clock = { at: 0 };
  const wire = wireReads(batches, (read) => (clock.at = 100 * (read + 1)));
  const { channel, handed } = recordingChannel();
  const facts = await readSegmentFacts({ ...options(newState(), wire.events, async () => undefined), channel, now: () => clock.at, ...overrides });
  return { facts, handed };
}

/** The same, with every event through the full path: the reference the pass-through must match. */
async function readBatchesWithoutPassThrough(batches: DecodedStreamEvent[][], overrides: Partial<ReadSegmentOptions> = {}): Promise<Reading> {
  const fullPathOnly = vi.spyOn(SegmentRecorder.prototype as unknown as { mayPassDeltasThrough(): boolean }, 'mayPassDeltasThrough').mockReturnValue(false);
  try {
    return await readBatches(batches, overrides);
  } finally {
    fullPathOnly.mockRestore();
  }
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('readSegment passes deltas straight through once output was consumed (issue 19, decision 0301)', () => {
  it('the pass-through is taken: most of a long answer skips the full path', async () => {
    const taken = vi.spyOn(SegmentRecorder.prototype as unknown as { take(event: DecodedStreamEvent): unknown }, 'take');
    const words = Array.from({ length: 100 }, (_unused, index) => text(`w${index} `));
    const { facts, handed } = await readBatches([words.slice(0, 50), words.slice(50), finished]);
    expect(handed).toHaveLength(100);
    expect(facts).toMatchObject({ end: 'terminal', outputConsumed: true, nonWhitespaceText: true });
    // Per batch: its first event (from the read) and the one after it (until the batch's time is noted), then the two terminal events.
    expect(taken.mock.calls.length).toBeLessThan(10);
  });

  it('R5.4: a batch that opens with empty deltas still times its content by its own read', async () => {
    const { facts } = await readBatches([[text('a'), text('b'), text('c')], [text(''), text(''), text('d'), text('e')], finished]);
    expect(facts).toMatchObject({ firstOutputAt: 100, lastOutputAt: 200 });
  });

  it('R4.2: whitespace first, then words: the words are visible text', async () => {
    const { facts } = await readBatches([[text(' '), text(' '), text(' '), text('word'), text(' more')], finished]);
    expect(facts).toMatchObject({ textProduced: true, nonWhitespaceText: true });
  });

  it('R4.1: a tool-call delta with no start before it is still a tool call', async () => {
    const { facts } = await readBatches([[text('a'), text('b'), { type: 'tool-call-delta', toolCallId: 'c1', delta: '{}' }], finished]);
    expect(facts.toolCallProduced).toBe(true);
  });

  it('a decoder that throws on the pass-through’s read fails the segment (R6.1), as on the full path', async () => {
    const bug = new Error('decoder bug');
    const buffered = [text('b'), text('c'), text('d')];
    let read = false;
    let returned = 0;
    const iterator = {
      next: async (): Promise<IteratorResult<DecodedStreamEvent>> => {
        read = true;
        return { done: false, value: text('a') };
      },
      // One batch of four: the read's event, then three buffered ones; the next buffered read throws.
      takeBuffered: (): DecodedStreamEvent | undefined => {
        if (!read) return undefined;
        const event = buffered.shift();
        if (event === undefined) throw bug;
        return event;
      },
      return: async (): Promise<IteratorResult<DecodedStreamEvent>> => {
        returned += 1;
        return { done: true, value: undefined };
      },
    };
    const { channel, handed } = recordingChannel();
    const facts = readSegmentFacts({ ...options(newState(), { [Symbol.asyncIterator]: () => iterator }, async () => undefined), channel });
    await expect(facts).rejects.toBe(bug);
    expect(handed.map((event) => (event.type === 'text-delta' ? event.delta : event.type))).toEqual(['a', 'b', 'c', 'd']);
    await vi.waitFor(() => expect(returned).toBe(1));
  });

  it('the recovery segment’s deltas keep their block prefix, and its tool calls stay away from the host (R4.5)', async () => {
    const call: DecodedStreamEvent = { type: 'tool-call-delta', toolCallId: 'c1', delta: '{}' };
    const prefixed = await readBatches([[text('a'), text('b'), text('c')], finished], { blockIdPrefix: 'recovery-' });
    expect(prefixed.handed.map((event) => (event.type === 'text-delta' ? event.id : event.type))).toEqual(['recovery-t', 'recovery-t', 'recovery-t']);
    const hidden = await readBatches([[text('a'), text('b'), call, call], finished], { forwardToolCalls: false });
    expect(hidden.handed.map((event) => event.type)).toEqual(['text-delta', 'text-delta']);
  });
});

const eventArbitrary: fc.Arbitrary<DecodedStreamEvent> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('', ' ', '\n', 'a', 'word ').map(text) },
  { weight: 3, arbitrary: fc.constantFrom('', ' ', 'think ').map((delta): DecodedStreamEvent => ({ type: 'reasoning-delta', id: 'r', delta })) },
  {
    weight: 3,
    arbitrary: fc.constantFrom<DecodedStreamEvent>(
      { type: 'text-start', id: 't' },
      { type: 'text-end', id: 't' },
      { type: 'reasoning-start', id: 'r' },
      { type: 'reasoning-start', id: 'r', redacted: true },
      { type: 'reasoning-end', id: 'r' },
      { type: 'tool-call-start', toolCallId: 'c1', toolName: 'run' },
      { type: 'tool-call-delta', toolCallId: 'c1', delta: '{"a":' },
      { type: 'tool-call-end', toolCallId: 'c1', toolName: 'run', input: '{}' },
      { type: 'response-metadata', responseId: 'resp_1' },
      { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' } },
    ),
  },
);

const streamArbitrary = fc.record({
  batches: fc.array(fc.array(eventArbitrary, { minLength: 1, maxLength: 8 }), { minLength: 1, maxLength: 6 }),
  terminal: fc.boolean(),
  forwardToolCalls: fc.boolean(),
  blockIdPrefix: fc.constantFrom('', 'recovery-'),
  keepReasoning: fc.boolean(),
});

describe('the pass-through changes nothing the full path would do (property)', () => {
  it('same events handed over, same ids, same facts, for any stream, batching and segment', async () => {
    await fc.assert(
      fc.asyncProperty(streamArbitrary, async ({ batches, terminal, ...segment }) => {
        const stream = [...batches, [{ type: 'stream-end', terminalFrameSeen: terminal } as DecodedStreamEvent]];
        const reference = await readBatchesWithoutPassThrough(stream, segment);
        const passed = await readBatches(stream, segment);
        expect(passed.handed).toEqual(reference.handed);
        expect(passed.facts).toEqual(reference.facts);
      }),
      { numRuns: 1000 },
    );
  });
});
