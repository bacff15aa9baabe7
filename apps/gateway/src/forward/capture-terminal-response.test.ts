import { responsesAdapter } from '@turnguard/adapter-responses';
import { collectEvents, streamOfChunks, splitBytesAt } from '@turnguard/testkit';
import { describe, expect, it } from 'vitest';
import { TerminalResponseCapture } from './capture-terminal-response.js';

const BODY = { segmentIndex: 0, requestId: 'r' } as const;

/** `wire` decoded by the Responses adapter in chunks of `size` bytes, its records told to `capture` as runTurn would. */
async function decodeInto(capture: TerminalResponseCapture, wire: string, size: number): Promise<void> {
  const bytes = new TextEncoder().encode(wire);
  const cuts = Array.from({ length: Math.ceil(bytes.length / size) }, (_unused, index) => index * size).slice(1);
  await collectEvents(responsesAdapter.decodeStream(streamOfChunks(splitBytesAt(bytes, cuts)), { records: capture.observeBody(BODY) }));
}

describe('TerminalResponseCapture (R8.6: the response.completed object as it came)', () => {
  it('keeps the terminal record’s response object, whatever the chunking and line endings (the records core framed, R8.13)', async () => {
    const completed = { id: 'resp_1', object: 'response', status: 'completed', tools: [{ type: 'function', name: 'f' }], metadata: { a: 'é' } };
    for (const eol of ['\n', '\r', '\r\n']) {
      const wire = `event: response.created${eol}data: {"type":"response.created","response":{"id":"resp_1"}}${eol}${eol}event: response.completed${eol}data: ${JSON.stringify({ type: 'response.completed', response: completed })}${eol}${eol}`;
      for (const size of [1, 3, 17, wire.length * 2]) {
        const capture = new TerminalResponseCapture();
        await decodeInto(capture, wire, size);
        expect(capture.lastTerminal(), `chunks of ${size}, ${JSON.stringify(eol)}`).toEqual(completed);
      }
    }
  });

  it('one entry per body: the last body’s object wins, a body cut before its terminal record has none', async () => {
    const capture = new TerminalResponseCapture();
    await decodeInto(capture, 'data: {"type":"response.completed","response":{"id":"first"}}\n\n', 1000);
    await decodeInto(capture, 'data: {"type":"response.output_text.delta","delta":"x"}\n\n', 1000);
    expect(capture.perBody).toEqual([{ id: 'first' }, undefined]);
    expect(capture.lastTerminal()).toBeUndefined();
    // A last record whose lines are complete but lacks its blank line is still read at the end (the decoder's rule).
    await decodeInto(capture, 'data: {"type":"response.incomplete","response":{"id":"third"}}\n', 1000);
    expect(capture.lastTerminal()).toEqual({ id: 'third' });
  });
});
