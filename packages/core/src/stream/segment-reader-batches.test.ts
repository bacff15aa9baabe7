import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import type { DecodedStreamEvent } from '../types/turn-event.js';
import type { ReadSegmentOptions } from './segment-reader.js';
import { newStream, oneEventPerRead, readAll, readOptions, type Reading, wireReads } from './segment-reader.test-helper.js';

// The reader takes a batch's events synchronously (the decoder's
// `takeBuffered`), one per host pull, and reads the wire only when the
// batch is empty. Read one event per `next()` instead — the plain async
// iterator path — the host must get the same events and the turn the same
// facts (R4.1–R4.5, R5.4, R8.2): that path is the oracle of the batch path.

const finished: DecodedStreamEvent[] = [
  { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' } },
  { type: 'stream-end', terminalFrameSeen: true },
];
const text = (delta: string): DecodedStreamEvent => ({ type: 'text-delta', id: 't', delta });

/** Reads `batches` (one wire read each, read k at time 100·(k+1)) with a host that pulls again at once. */
function readBatches(batches: DecodedStreamEvent[][], overrides: Partial<ReadSegmentOptions> = {}): Promise<Reading> {
  const clock = { at: 0 };
  const wire = wireReads(batches, (read) => (clock.at = 100 * (read + 1)));
  return readAll(wire.events, { now: () => clock.at, ...overrides });
}

/** The same, every event from its own `next()`: the reference. */
function readOneByOne(batches: DecodedStreamEvent[][], overrides: Partial<ReadSegmentOptions> = {}): Promise<Reading> {
  const clock = { at: 0 };
  const wire = oneEventPerRead(batches, (read) => (clock.at = 100 * (read + 1)));
  return readAll(wire.events, { now: () => clock.at, ...overrides });
}

describe('the segment reader reads a batch one event per host pull', () => {
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

  it('a decoder that throws on a buffered read fails the segment (R6.1) and is let go', async () => {
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
    const handed: string[] = [];
    const stream = newStream();
    const facts = stream.readSegment({ [Symbol.asyncIterator]: () => iterator }, readOptions());
    facts.catch(() => stream.end());
    for await (const event of stream) handed.push(event.type === 'text-delta' ? event.delta : event.type);
    await expect(facts).rejects.toBe(bug);
    expect(handed).toEqual(['a', 'b', 'c', 'd']);
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

describe('the batch path changes nothing the one-event-per-read path would do (property)', () => {
  it('same events handed over, same ids, same facts, for any stream, batching and segment', async () => {
    await fc.assert(
      fc.asyncProperty(streamArbitrary, async ({ batches, terminal, ...segment }) => {
        const stream = [...batches, [{ type: 'stream-end', terminalFrameSeen: terminal } as DecodedStreamEvent]];
        const reference = await readOneByOne(stream, segment);
        const batched = await readBatches(stream, segment);
        expect(batched.handed).toEqual(reference.handed);
        // Reasoning is let go at the first read after text or a tool call (R4.2), so when it goes
        // depends on the batching; no recovery can follow such a segment, so its text is never used.
        const recoverable = !reference.facts.textProduced && !reference.facts.toolCallProduced;
        expect({ ...batched.facts, reasoningText: recoverable ? batched.facts.reasoningText : '' }).toEqual({
          ...reference.facts,
          reasoningText: recoverable ? reference.facts.reasoningText : '',
        });
      }),
      { numRuns: 1000 },
    );
  });
});
