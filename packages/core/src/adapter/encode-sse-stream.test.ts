import { describe, expect, it } from 'vitest';
import type { TurnEvent } from '../types/turn-event.js';
import { encodeSseStream, type SseTextEncoder } from './encode-sse-stream.js';

const encoder: SseTextEncoder = {
  encodeEvent: (event) => (event.type === 'text-delta' ? `data: ${event.delta}\n\n` : event.type === 'error' ? `event: error\ndata: ${event.error.code}\n\n` : ''),
  finish: () => 'data: END\n\n',
};

async function readText(stream: ReadableStream<Uint8Array>): Promise<string> {
  return new Response(stream).text();
}

describe('encodeSseStream (R7.3, R8.2, R8.3)', () => {
  it('encodes events as they come, skips events with no wire form, then the closing records', async () => {
    async function* events(): AsyncGenerator<TurnEvent> {
      yield { type: 'text-start', id: 't' };
      yield { type: 'text-delta', id: 't', delta: 'a' };
      yield { type: 'text-delta', id: 't', delta: 'b' };
    }
    expect(await readText(encodeSseStream(events(), encoder))).toBe('data: a\n\ndata: b\n\ndata: END\n\n');
  });

  it('tells the client a failed source in its own dialect (error event, then the closing records), never a silent cut', async () => {
    async function* events(): AsyncGenerator<TurnEvent> {
      yield { type: 'text-delta', id: 't', delta: 'a' };
      throw new TypeError('terminated');
    }
    expect(await readText(encodeSseStream(events(), encoder))).toBe('data: a\n\nevent: error\ndata: SERVER\n\ndata: END\n\n');
  });

  it('cancelling the byte stream stops the source', async () => {
    let returned = false;
    async function* events(): AsyncGenerator<TurnEvent> {
      try {
        for (;;) yield { type: 'text-delta', id: 't', delta: 'x' };
      } finally {
        returned = true;
      }
    }
    const reader = encodeSseStream(events(), encoder).getReader();
    await reader.read();
    await reader.cancel();
    expect(returned).toBe(true);
  });
});
