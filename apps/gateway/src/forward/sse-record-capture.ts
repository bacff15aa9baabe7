import type { DecodedStreamEvent, ResponseBodyInfo, SseRecordObserver } from '@turnguard/core';
import type { UpstreamObjectCapture } from './upstream-object-capture.js';
import type { Json } from '../assemble/json-record.js';

/** One SSE record of an upstream body: its `event` field (if any) and its joined `data` lines. */
export type SseRecordHandler = (event: string | undefined, data: string) => void;

/**
 * The record-reading half of every UpstreamObjectCapture: each successful
 * upstream body hands its records — exactly the ones core's framer read and
 * the decoder judged, LF, CR and CRLF alike (R8.13) — to the handler a
 * subclass gives for that body (R8.6). A subclass builds the client's body.
 */
export abstract class SseRecordCapture implements UpstreamObjectCapture {
  /** A handler threw: its capture is incomplete, so the rendered body is used instead (R8.6 falls back, never fails). */
  protected broken = false;

  observeBody(_info: ResponseBodyInfo): SseRecordObserver<DecodedStreamEvent> {
    const handler = this.startBody();
    return {
      onRecord: (record) => {
        if (this.broken) return;
        // Inside core's decoder: a throw here would look like an upstream failure.
        try {
          handler(record.event, record.data);
        } catch {
          this.broken = true;
        }
      },
    };
  }

  abstract bodyFor(rendered: Json, recovered: boolean): Json;

  /** A new body starts: where its records go (earlier bodies' state is the subclass's to keep or drop). */
  protected abstract startBody(): SseRecordHandler;
}
