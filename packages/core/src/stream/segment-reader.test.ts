import { describe, expect, it, vi } from 'vitest';
import type { DecodedStreamEvent } from '../types/turn-event.js';
import { batchedEvents, newStream, readAll, readOptions, scriptedEvents, wireReads } from './segment-reader.test-helper.js';

const text = (delta: string): DecodedStreamEvent => ({ type: 'text-delta', id: 't', delta });
const finished: DecodedStreamEvent[] = [{ type: 'finish', finishReason: { unified: 'stop', raw: 'stop' } }, { type: 'stream-end', terminalFrameSeen: true }];
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('the segment reader ends at once on an abort (R1.6)', () => {
  it('while the next chunk is awaited: closes the decoder, and a late chunk is never read', async () => {
    const controller = new AbortController();
    const wire = scriptedEvents();
    const stream = newStream();
    const facts = stream.readSegment(wire.events, readOptions({ signal: controller.signal }));
    void stream.next();
    expect(wire.nextCalls()).toBe(1);
    controller.abort('stop');
    await expect(facts).resolves.toMatchObject({ end: 'aborted', outputConsumed: false });
    await vi.waitFor(() => expect(wire.returned).toHaveBeenCalledTimes(1));
    wire.pending[0]!({ done: false, value: text('late') });
    await settle();
    expect((await facts).textProduced).toBe(false);
    expect(wire.nextCalls()).toBe(1);
  });

  it('while the host holds an event', async () => {
    const controller = new AbortController();
    const wire = scriptedEvents();
    const stream = newStream();
    const facts = stream.readSegment(wire.events, readOptions({ signal: controller.signal }));
    const first = stream.next();
    wire.pending[0]!({ done: false, value: text('held') });
    await expect(first).resolves.toMatchObject({ value: { delta: 'held' } });
    controller.abort('user');
    await expect(facts).resolves.toMatchObject({ end: 'aborted', textProduced: true, outputConsumed: false });
  });

  it('listens to the signal once for a whole segment, and not after it ended', async () => {
    const controller = new AbortController();
    const add = vi.spyOn(controller.signal, 'addEventListener');
    const remove = vi.spyOn(controller.signal, 'removeEventListener');
    const source = (async function* () {
      for (let index = 0; index < 100; index += 1) yield text(`w${index} `);
      yield* finished;
    })();
    const { facts } = await readAll(source, { signal: controller.signal });
    expect(facts).toMatchObject({ end: 'terminal', terminalFrameSeen: true, nonWhitespaceText: true });
    expect([add.mock.calls.length, remove.mock.calls.length]).toEqual([1, 1]);
  });

  it('an abort before the segment starts reads nothing', async () => {
    const wire = scriptedEvents();
    const facts = newStream().readSegment(wire.events, readOptions({ signal: AbortSignal.abort() }));
    await expect(facts).resolves.toMatchObject({ end: 'aborted' });
    expect(wire.nextCalls()).toBe(0);
  });
});

describe('the segment reader never reads ahead of the host (R4.1)', () => {
  it('the next buffered event goes out with the host’s pull, and nothing more is taken until it pulls again', async () => {
    const wire = batchedEvents([text('a'), text('b'), ...finished]);
    const stream = newStream();
    const facts = stream.readSegment(wire.events, readOptions());
    await expect(stream.next()).resolves.toMatchObject({ value: { delta: 'a' } });
    // The host holds 'a': 'b' is still in the decoder's batch, not read into the facts.
    expect(wire.taken()).toBe(1);
    // The host pulls again: 'b' comes from the batch at once, with no second read.
    await expect(stream.next()).resolves.toMatchObject({ value: { delta: 'b' } });
    expect([wire.taken(), wire.reads()]).toEqual([2, 1]);
    // The host pulls again after 'b': the terminal frame is read, nothing more goes out.
    void stream.next();
    await expect(facts).resolves.toMatchObject({ end: 'terminal', outputConsumed: true, finishReason: { unified: 'stop' } });
    expect(wire.reads()).toBe(1);
  });

  it('output is consumed only once the host pulls again after a content event', async () => {
    const wire = batchedEvents([text('a'), { type: 'stream-end', terminalFrameSeen: false }]);
    const stream = newStream();
    const facts = stream.readSegment(wire.events, readOptions());
    await stream.next();
    // Stopped while holding 'a': it was handed over, never consumed (R1.1: the attempt stays retryable).
    await stream.return();
    await expect(facts).resolves.toMatchObject({ end: 'aborted', outputConsumed: false, textProduced: true });
    expect(wire.taken()).toBe(1);
  });

  it('a warning the decoder reports goes to the host before the event read after it, also first in a read', async () => {
    const warning: DecodedStreamEvent = { type: 'warning', message: 'dropped a part' };
    const wire = wireReads([[text('a'), warning, text('b')], [warning, text('c')], finished]);
    const stream = newStream();
    const options = readOptions({ notices: { addWarning: (message) => stream.post({ type: 'warning', message }), noteMetadata: () => undefined } });
    const facts = stream.readSegment(wire.events, options);
    facts.then(() => stream.end());
    const seen: string[] = [];
    for await (const event of stream) seen.push(event.type === 'text-delta' ? event.delta : event.type);
    expect(seen).toEqual(['a', 'warning', 'b', 'warning', 'c']);
  });
});

describe('the segment reader keeps the whole reasoning text for a recovery checkpoint (R4.3)', () => {
  const reasoning = (count: number): DecodedStreamEvent[] =>
    Array.from({ length: count }, (_unused, index) => ({ type: 'reasoning-delta', id: 'r', delta: `step ${index}; ` }));
  const expected = (count: number): string => Array.from({ length: count }, (_unused, index) => `step ${index}; `).join('');

  it.each([1, 63, 64, 65, 200])('%i deltas, then a terminal frame: every delta, in order', async (count) => {
    const { facts } = await readAll(batchedEvents([...reasoning(count), ...finished]).events);
    expect(facts.end).toBe('terminal');
    expect(facts.reasoningText).toBe(expected(count));
  });

  it('a stream cut after 130 deltas (no terminal frame) keeps all 130', async () => {
    const { facts } = await readAll(batchedEvents([...reasoning(130), { type: 'stream-end', terminalFrameSeen: false }]).events);
    expect(facts.end).toBe('eof');
    expect(facts.reasoningText).toBe(expected(130));
  });

  it('an abort after 100 deltas keeps the 100 the host took', async () => {
    const controller = new AbortController();
    const stream = newStream();
    const facts = stream.readSegment(batchedEvents(reasoning(300)).events, readOptions({ signal: controller.signal }));
    for (let handed = 0; handed < 100; handed += 1) await stream.next();
    controller.abort();
    expect((await facts).end).toBe('aborted');
    expect((await facts).reasoningText).toBe(expected(100));
  });
});

describe('the segment reader lets the reasoning go once no recovery can use it (R4.2, R4.3)', () => {
  const reasoning = (count: number): DecodedStreamEvent[] =>
    Array.from({ length: count }, (_unused, index) => ({ type: 'reasoning-delta', id: 'r', delta: `step ${index}; ` }));
  const cut: DecodedStreamEvent = { type: 'stream-end', terminalFrameSeen: false };
  const read = async (batches: DecodedStreamEvent[][], keepReasoning = true, reasoningMaxChars = 131_072) =>
    (await readAll(wireReads(batches).events, { keepReasoning, reasoningMaxChars })).facts;

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

describe('the segment reader times output by wire read (R5.4: time to first output, decode window)', () => {
  it('first output is the read that brought the first content, last output the read that brought the last', async () => {
    const clock = { at: 0 };
    const now = vi.fn(() => clock.at);
    const readAt = [50, 100, 250, 400];
    const wire = wireReads(
      [[{ type: 'text-start', id: 't' }], [text('a'), text('b'), text('c'), text('d')], [text('e')], [{ type: 'finish', finishReason: { unified: 'stop', raw: 'stop' } }, { type: 'stream-end', terminalFrameSeen: true }]],
      (read) => (clock.at = readAt[read]!),
    );
    const { facts } = await readAll(wire.events, { now });
    expect(facts).toMatchObject({ end: 'terminal', firstOutputAt: 100, lastOutputAt: 250 });
    // One clock read when the segment starts and one per wire read (4), none per event (6).
    expect(now).toHaveBeenCalledTimes(5);
  });

  it('a segment with no content has no output times', async () => {
    const clock = { at: 0 };
    const wire = wireReads([[{ type: 'text-start', id: 't' }, text('')], [{ type: 'stream-end', terminalFrameSeen: false }]], (read) => (clock.at = [10, 20][read]!));
    const { facts } = await readAll(wire.events, { now: () => clock.at });
    expect(facts).toMatchObject({ end: 'eof', firstOutputAt: undefined, lastOutputAt: undefined });
  });
});

describe('the segment reader records what each event type tells (R4.1, R4.5)', () => {
  it('an event type this version does not know is skipped: not handed over, not output', async () => {
    const future = { type: 'citation-delta', id: 'c', delta: 'ref' } as unknown as DecodedStreamEvent;
    const { facts, handed } = await readAll(batchedEvents([future, { type: 'stream-end', terminalFrameSeen: false }]).events, { now: () => 7 });
    expect(handed).toEqual([]);
    expect(facts).toMatchObject({ end: 'eof', outputConsumed: false, textProduced: false, firstOutputAt: undefined });
  });

  it('a recovery segment’s tool call is output (R4.1) that never reaches the host (R4.5)', async () => {
    const call: DecodedStreamEvent[] = [
      { type: 'tool-call-start', toolCallId: 'c1', toolName: 'run' },
      { type: 'tool-call-delta', toolCallId: 'c1', delta: '{}' },
      { type: 'tool-call-end', toolCallId: 'c1', toolName: 'run', input: '{}' },
    ];
    const wire = batchedEvents([{ type: 'text-start', id: 't' }, ...call, { type: 'text-delta', id: 't', delta: 'done' }, ...finished]);
    const { facts, handed } = await readAll(wire.events, { forwardToolCalls: false, now: () => 7 });
    expect(handed.map((event) => event.type)).toEqual(['text-start', 'text-delta']);
    expect(facts).toMatchObject({ end: 'terminal', toolCallProduced: true, firstOutputAt: 7 });
  });

  it('empty deltas are not content and whitespace is not visible text', async () => {
    const wire = batchedEvents([
      { type: 'text-start', id: 't' },
      { type: 'text-delta', id: 't', delta: '' },
      { type: 'reasoning-delta', id: 'r', delta: '' },
      { type: 'stream-end', terminalFrameSeen: false },
    ]);
    const { facts, handed } = await readAll(wire.events);
    // No content: the block start and the empty deltas stay held, and are dropped with the segment.
    expect(handed).toEqual([]);
    expect(facts).toMatchObject({ end: 'eof', textProduced: false, outputConsumed: false });

    const spaced = batchedEvents([{ type: 'text-start', id: 't' }, { type: 'text-delta', id: 't', delta: ' \n' }, ...finished]);
    const whitespace = await readAll(spaced.events);
    expect(whitespace.handed.map((event) => event.type)).toEqual(['text-start', 'text-delta']);
    expect(whitespace.facts).toMatchObject({ end: 'terminal', textProduced: true, nonWhitespaceText: false, outputConsumed: true });
  });

  it('a redacted reasoning block is content on its own: handed over, and output', async () => {
    const wire = batchedEvents([{ type: 'reasoning-start', id: 'r', redacted: true }, { type: 'stream-end', terminalFrameSeen: false }]);
    const { facts, handed } = await readAll(wire.events, { now: () => 7 });
    expect(handed.map((event) => event.type)).toEqual(['reasoning-start']);
    expect(facts).toMatchObject({ end: 'eof', outputConsumed: true, firstOutputAt: 7 });
  });
});
