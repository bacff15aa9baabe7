import type { DecodedStreamEvent, Protocol, ResponseBodyInfo, SseRecordObserver } from '@turnguard/core';
import { ChatCompletionCapture } from './capture-chat-completion.js';
import { MessagesMessageCapture } from './capture-messages-message.js';
import { TerminalResponseCapture } from './capture-terminal-response.js';
import type { Json } from '../assemble/json-record.js';


/**
 * A non-streaming request still streams upstream (so R4 recovery works);
 * R8.6 wants its JSON to be "the JSON the upstream itself would have sent".
 * A capture reads the upstream bodies' records as core reports them
 * (runTurn's `observeSseRecords`) and keeps the upstream's own object — for
 * Chat and Messages what the official SDK's stream accumulator builds
 * (decision 0235), for Responses the terminal `response` (0234).
 */
export interface UpstreamObjectCapture {
  /** runTurn's `observeSseRecords`: the records of one successful upstream body. */
  observeBody(info: ResponseBodyInfo): SseRecordObserver<DecodedStreamEvent>;
  /**
   * The client's body, once the turn ended well: the last upstream body's
   * object, with `rendered` (built from the turn's events) where the
   * upstream's is wrong or, after a recovery, where the turn's differs
   * (its output, its aggregated usage, R5), and after a continuation its
   * whole text (R11.6). `rendered` when nothing was captured.
   */
  bodyFor(rendered: Json, recovered: boolean, continued?: boolean): Json;
}

/** `onDroppedAfterEnd`: a record came after the protocol's proper end and was left out (R8.13, counted). */
export function captureUpstreamObject(protocol: Protocol, onDroppedAfterEnd: () => void): UpstreamObjectCapture {
  switch (protocol) {
    case 'chat':
      return new ChatCompletionCapture(onDroppedAfterEnd);
    case 'messages':
      return new MessagesMessageCapture(onDroppedAfterEnd);
    case 'responses':
      return new TerminalResponseCapture(onDroppedAfterEnd);
    default: {
      const _exhaustive: never = protocol;
      return _exhaustive;
    }
  }
}
