import { TurnError } from '../errors/turn-error.js';
import type { TurnEvent } from '../types/turn-event.js';

/** One encoded response's SSE text, event by event (an adapter's synchronous encoder). */
export interface SseTextEncoder {
  /** The SSE records for one neutral event ('' when it has no wire form of its own). */
  encodeEvent(event: TurnEvent): string;
  /** What follows the last event (Chat: the usage chunk and `[DONE]`; Responses: a terminal frame if none came). */
  finish(): string;
}

/**
 * Neutral events → SSE bytes, pulled one event at a time so output is relayed
 * as it arrives (R8.2); cancelling the byte stream stops the source. A source
 * that fails is told to the client in its own dialect — the error encoded as
 * an event, then the closing records — never a silently truncated stream
 * (R8.3). Shared by the three adapters' `encodeStream` (R7.3).
 */
export function encodeSseStream(events: AsyncIterable<TurnEvent>, encoder: SseTextEncoder): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder();
  const iterator = events[Symbol.asyncIterator]();
  let closed = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (closed) return;
      try {
        // Loop until something is enqueued: a pull that enqueues nothing is not called again.
        for (;;) {
          const next = await iterator.next();
          const text = next.done === true ? encoder.finish() : encoder.encodeEvent(next.value);
          if (text !== '') controller.enqueue(bytes.encode(text));
          if (next.done === true) {
            closed = true;
            controller.close();
            return;
          }
          if (text !== '') return;
        }
      } catch (error) {
        const turnError = TurnError.isInstance(error)
          ? error
          : new TurnError({ kind: 'server', message: 'the upstream stream failed', cause: error });
        closed = true;
        controller.enqueue(bytes.encode(encoder.encodeEvent({ type: 'error', error: turnError }) + encoder.finish()));
        controller.close();
      }
    },
    async cancel(reason) {
      closed = true;
      await iterator.return?.(reason);
    },
  });
}
