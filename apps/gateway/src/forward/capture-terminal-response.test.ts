import { describe, expect, it } from 'vitest';
import { TerminalResponseCapture } from './capture-terminal-response.js';

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

describe('TerminalResponseCapture (R8.6: the response.completed object as it came)', () => {
  it('keeps the terminal record’s response object, whatever the chunking and line endings', () => {
    const completed = { id: 'resp_1', object: 'response', status: 'completed', tools: [{ type: 'function', name: 'f' }], metadata: { a: 'é' } };
    const wire = `event: response.created\r\ndata: {"type":"response.created","response":{"id":"resp_1"}}\r\n\r\nevent: response.completed\r\ndata: ${JSON.stringify({ type: 'response.completed', response: completed })}\r\n\r\n`;
    const encoded = bytes(wire);
    for (const size of [1, 3, 17, encoded.length]) {
      const capture = new TerminalResponseCapture();
      capture.onBodyStart();
      for (let at = 0; at < encoded.length; at += size) capture.onBytes(encoded.subarray(at, at + size));
      expect(capture.lastTerminal(), `chunks of ${size}`).toEqual(completed);
    }
  });

  it('one entry per body: the last body’s object wins, a body cut before its terminal record has none', () => {
    const capture = new TerminalResponseCapture();
    capture.onBodyStart();
    capture.onBytes(bytes('data: {"type":"response.completed","response":{"id":"first"}}\n\n'));
    capture.onBodyStart();
    capture.onBytes(bytes('data: {"type":"response.output_text.delta","delta":"x"}\n\n'));
    expect(capture.perBody).toEqual([{ id: 'first' }, undefined]);
    expect(capture.lastTerminal()).toBeUndefined();
    capture.onBodyStart();
    // A last record with no blank line after it is still read at the end.
    capture.onBytes(bytes('data: {"type":"response.incomplete","response":{"id":"third"}}'));
    expect(capture.lastTerminal()).toEqual({ id: 'third' });
  });
});
