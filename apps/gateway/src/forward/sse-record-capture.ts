import type { DecodedStreamEvent, Protocol, ResponseBodyInfo, SseRecordObserver } from '@turnguard/core';
import { createRecordJudge } from './judge-sse-records.js';
import type { UpstreamObjectCapture } from './upstream-object-capture.js';
import type { Json } from '../assemble/json-record.js';

/** One SSE record of an upstream body: its `event` field (if any) and its joined `data` lines. */
export type SseRecordHandler = (event: string | undefined, data: string) => void;

/**
 * The record-reading half of every UpstreamObjectCapture: each successful
 * upstream body hands its records — exactly the ones core's framer read and
 * the decoder judged, LF, CR and CRLF alike — to the handler a subclass gives
 * for that body (R8.6). The records are judged as the streaming relay judges
 * them (judge-sse-records.ts): an in-stream error, a repeat and anything after
 * the protocol's proper end never reach the object (R8.13).
 */
export abstract class SseRecordCapture implements UpstreamObjectCapture {
  /** A handler threw: its capture is incomplete, so the rendered body is used instead (R8.6 falls back, never fails). */
  protected broken = false;

  constructor(
    private readonly protocol: Protocol,
    private readonly onDroppedAfterEnd: () => void,
  ) {}

  observeBody(_info: ResponseBodyInfo): SseRecordObserver<DecodedStreamEvent> {
    const handler = this.startBody();
    // A JSON answer always carries usage, as OpenAI's does.
    const judge = createRecordJudge(this.protocol, true);
    return {
      onRecord: (record) => {
        if (this.broken) return;
        // Inside core's decoder: a throw here would look like an upstream failure.
        try {
          const verdict = judge.judge(record);
          if (verdict === 'relay') handler(record.event, record.data);
          else if (verdict === 'after-end') this.onDroppedAfterEnd();
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
