import { TurnError, type TurnEvent } from '@turnguard/core';
import { describe, expect, it } from 'vitest';
import { SplicingSseOutput } from './splicing-sse-output.js';

// Unit tests of the raw relay's state machine (decision 0210); the e2e tests drive it over real sockets.
const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
const text = (chunks: Array<string | Uint8Array>): string => chunks.map((chunk) => (typeof chunk === 'string' ? chunk : new TextDecoder().decode(chunk))).join('');

function startOutput(protocol: 'chat' | 'messages' | 'responses', dropChatUsage = false) {
  const written: Array<string | Uint8Array> = [];
  const output = new SplicingSseOutput({ protocol, dropChatUsage });
  return { output, written, write: (chunk: string | Uint8Array) => written.push(chunk) };
}

const metadata: TurnEvent = { type: 'response-metadata', responseId: 'chatcmpl-1', model: 'm', createdAt: 1 };
const delta = (value: string): TurnEvent => ({ type: 'text-delta', id: 't', delta: value });

describe('SplicingSseOutput', () => {
  it('writes only whole records, and only when the decoder asks for more bytes', () => {
    const { output, written, write } = startOutput('chat');
    output.onBodyStart();
    output.onBytes(bytes('data: {"a":1}\n\ndata: {"b"'));
    output.start([metadata, delta('x')], write);
    expect(written).toEqual([]);
    output.onDrained();
    expect(text(written)).toBe('data: {"a":1}\n\n');
    output.onBytes(bytes(':2}\n\n'));
    output.onDrained();
    expect(text(written)).toBe('data: {"a":1}\n\ndata: {"b":2}\n\n');
  });

  it('bytes of a body replaced before the first visible event are dropped (a retried attempt)', () => {
    const { output, written, write } = startOutput('chat');
    output.onBodyStart();
    output.onBytes(bytes('data: {"attempt":1}\n\n'));
    output.onBodyStart();
    output.onBytes(bytes('data: {"attempt":2}\n\n'));
    output.start([delta('x')], write);
    output.onDrained();
    expect(text(written)).toBe('data: {"attempt":2}\n\n');
  });

  it('at a final error the pending record is not written; the consumed events and the error are encoded instead', () => {
    const { output, written, write } = startOutput('chat');
    output.onBodyStart();
    output.onBytes(bytes('data: {"first":true}\n\n'));
    output.start([metadata, delta('Hello ')], write);
    output.onDrained();
    output.onBytes(bytes('data: {"second":true}\n\ndata: {"error":{"message":"x"}}\n\n'));
    output.event(delta('world'));
    output.event({ type: 'error', error: new TurnError({ kind: 'server', code: 'STREAM_CUT', message: 'cut' }) });
    output.finish();
    const all = text(written);
    expect(all.startsWith('data: {"first":true}\n\n')).toBe(true);
    expect(all).not.toContain('"second":true');
    expect(all).toContain('"content":"world"');
    expect(all).toContain('"id":"chatcmpl-1"');
    expect(all).toMatch(/data: \{"error":.*\n\ndata: \[DONE\]\n\n$/s);
  });

  it('Responses: after a splice the encoder continues the relayed sequence numbers', () => {
    const { output, written, write } = startOutput('responses');
    output.onBodyStart();
    output.onBytes(bytes('event: response.created\ndata: {"type":"response.created","sequence_number":0}\n\nevent: x\ndata: {"type":"x","sequence_number":41}\n\n'));
    output.start([{ type: 'response-metadata', responseId: 'resp_1', model: 'm', createdAt: 1 }, { type: 'reasoning-start', id: 'rs_1' }, { type: 'reasoning-delta', id: 'rs_1', delta: 'hm' }], write);
    output.onDrained();
    output.event({ type: 'recovery-start', recoveryId: 'r' });
    output.event({ type: 'text-start', id: 'recovery-msg' });
    output.event({ type: 'text-delta', id: 'recovery-msg', delta: 'Answer' });
    const spliced = text(written).split('\n\n').slice(2).filter((record) => record.includes('sequence_number'));
    const numbers = spliced.map((record) => Number(/"sequence_number":(\d+)/.exec(record)![1]));
    expect(numbers[0]).toBe(42);
    expect(numbers).toEqual(numbers.map((_, index) => 42 + index));
    expect(text(written)).not.toContain('response.created","sequence_number":42');
  });

  it('Chat without usage asked: the usage-only chunk is cut out of the raw bytes, CRLF records included', () => {
    const { output, written, write } = startOutput('chat', true);
    output.onBodyStart();
    output.onBytes(bytes('data: {"choices":[{"index":0,"delta":{"content":"a"}}]}\r\n\r\ndata: {"choices":[],"usage":{"total_tokens":3}}\r\n\r\ndata: [DONE]\r\n\r\n'));
    output.start([delta('a')], write);
    output.onDrained();
    expect(text(written)).toBe('data: {"choices":[{"index":0,"delta":{"content":"a"}}]}\r\n\r\ndata: [DONE]\r\n\r\n');
  });

  it('a heartbeat as the first visible event (a retry wait) encodes the whole turn: no byte of any attempt goes out raw', () => {
    const { output, written, write } = startOutput('messages');
    output.onBodyStart();
    output.onBytes(bytes('event: message_start\ndata: {"attempt":1}\n\n'));
    output.start([{ type: 'heartbeat', waitedMs: 1000, remainingMs: 5000 }], write);
    output.onDrained();
    output.onBodyStart();
    output.onBytes(bytes('event: message_start\ndata: {"attempt":2}\n\n'));
    output.onDrained();
    output.event({ type: 'text-start', id: 't' });
    const all = text(written);
    expect(all).toContain('event: ping');
    expect(all).not.toContain('"attempt"');
    expect(all.match(/event: message_start/g)).toHaveLength(1);
  });

  it('a normal end on the relayed body writes its last record even without a blank line, and nothing encoded', () => {
    const { output, written, write } = startOutput('chat');
    output.onBodyStart();
    output.onBytes(bytes('data: {"x":1}\n\ndata: [DONE]'));
    output.start([delta('x')], write);
    output.onDrained();
    output.event({ type: 'usage', usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 } as never });
    output.event({ type: 'finish', finishReason: { unified: 'stop', raw: 'stop' } });
    output.finish();
    expect(text(written)).toBe('data: {"x":1}\n\ndata: [DONE]');
  });

  it('issue 16: a multi-MB record read in 64 KiB pieces goes out once its end arrives, byte-exact, as the pieces it came in (no copy)', () => {
    const { output, written, write } = startOutput('chat');
    const big = `data: {"choices":[{"index":0,"delta":{"content":"${'é'.repeat(4 * 1024 * 1024)}"}}]}\r\n\r\n`;
    const all = Buffer.from(`data: {"a":1}\n\n${big}data: {"tail"`, 'utf8');
    const bigEnd = Buffer.byteLength(`data: {"a":1}\n\n${big}`);
    output.onBodyStart();
    output.start([metadata, delta('x')], write);
    const pieces: Uint8Array[] = [];
    for (let at = 0; at < all.length; at += 65_536) {
      // A fresh copy per piece, as the socket delivers it.
      const piece = new Uint8Array(all.subarray(at, Math.min(at + 65_536, all.length)));
      pieces.push(piece);
      output.onBytes(piece);
      output.onDrained();
      if (at + piece.length < bigEnd) expect(written.length, 'nothing of the record before its end').toBe(1);
    }
    expect(Buffer.from(written[0] as Uint8Array).toString()).toBe('data: {"a":1}\n\n');
    expect(Buffer.concat(written.slice(1) as Uint8Array[]).equals(Buffer.from(big, 'utf8'))).toBe(true);
    // Views of the chunks read, not a joined copy: the record's memory is its bytes once.
    expect(written.slice(1).every((chunk, index) => (chunk as Uint8Array).buffer === pieces[index]!.buffer)).toBe(true);
  });

  it('issue 16: without include_usage the usage-only chunk is dropped from a long multi-piece write, even when its mark spans two pieces', () => {
    const { output, written, write } = startOutput('chat', true);
    const big = `data: {"choices":[{"index":0,"delta":{"content":"${'x'.repeat(200_000)}"}}]}\n\n`;
    const usage = 'data: {"choices":[],"usage":{"prompt_tokens":1}}\n\n';
    const all = Buffer.from(`${big}${usage}data: [DONE]\n\n`, 'utf8');
    const seam = all.indexOf('"choices":[]') + 5;
    output.onBodyStart();
    output.start([metadata, delta('x')], write);
    for (const piece of [all.subarray(0, 65_536), all.subarray(65_536, seam), all.subarray(seam)]) output.onBytes(new Uint8Array(piece));
    output.onDrained();
    expect(text(written)).toBe(`${big}data: [DONE]\n\n`);
  });

  it('issue 16: a record end split across reads (CR | LF, CRLF CR | LF) is found once its last byte arrives', () => {
    const { output, written, write } = startOutput('chat');
    output.onBodyStart();
    output.start([metadata, delta('x')], write);
    for (const piece of ['data: {"a":1}\r', '\n\r', '\n', 'data: {"b":2}\r\n\r']) {
      output.onBytes(bytes(piece));
      output.onDrained();
    }
    expect(text(written)).toBe('data: {"a":1}\r\n\r\n');
    output.onBytes(bytes('\n'));
    output.onDrained();
    expect(text(written)).toBe('data: {"a":1}\r\n\r\ndata: {"b":2}\r\n\r\n');
  });
});
