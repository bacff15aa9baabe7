import type { DecodedStreamEvent, ObservedSseRecord, Protocol } from '@turnguard/core';

/** One SSE record of an upstream body as core's framer read it, with the events its decoder made of it (R8.13). */
export type ObservedRecord = ObservedSseRecord<DecodedStreamEvent>;

/**
 * What the raw relay does with one record of the body it relays:
 * - `relay`: its own text goes to the client;
 * - `omit`: left out, silently — a usage chunk the client did not ask for,
 *   or a record the decoder made nothing of and a client would misread (a
 *   repeated `message_start`, a `[DONE]` before the finish);
 * - `after-end`: it came after the protocol's proper end — dropped and
 *   counted as a warning (R8.13);
 * - `error`: an in-stream error. It is never relayed raw: the encoder writes the
 *   turn's final error (R8.3), and nothing more of this body is relayed.
 */
export type RecordVerdict = 'relay' | 'omit' | 'after-end' | 'error';

/**
 * A protocol's state machine over the records of one body, judged by the
 * events core decoded from each (and the `event` / `data` fields core's
 * framer read), never by a byte scan of its own.
 */
export interface RecordJudge {
  judge(record: ObservedRecord): RecordVerdict;
  /** The terminal frame was among the records judged `relay`. */
  readonly ended: boolean;
  /**
   * What the client still lacks of the protocol's proper end once the turn
   * ended complete (R8.13: a Chat `[DONE]`, a Messages `message_stop` after the
   * `message_delta` that carried its stop_reason); '' when nothing.
   */
  missingEnd(): string;
}

export function createRecordJudge(protocol: Protocol, clientWantsUsage: boolean): RecordJudge {
  switch (protocol) {
    case 'chat':
      return new ChatRecordJudge(clientWantsUsage);
    case 'messages':
      return new MessagesRecordJudge();
    case 'responses':
      return new ResponsesRecordJudge();
    default: {
      const _exhaustive: never = protocol;
      return _exhaustive;
    }
  }
}

function hasEvent(record: ObservedRecord, type: DecodedStreamEvent['type']): boolean {
  for (const event of record.events) if (event.type === type) return true;
  return false;
}

/** A record whose only events are usage: OpenAI's usage chunk (`"choices": []`, wire-formats §1). */
function isUsageOnly(record: ObservedRecord): boolean {
  if (record.events.length === 0) return false;
  for (const event of record.events) if (event.type !== 'usage') return false;
  return true;
}

const CHAT_DONE = 'data: [DONE]\n\n';

/**
 * Chat Completions: content chunks, the finish chunk (a choice with
 * `finish_reason`, the terminal frame), the usage chunk if the client asked
 * for it, one `[DONE]` (openai-node stops reading there).
 */
class ChatRecordJudge implements RecordJudge {
  #state: 'open' | 'finished' | 'done' | 'failed' = 'open';
  #usageSent = false;

  constructor(private readonly clientWantsUsage: boolean) {}

  get ended(): boolean {
    return this.#state === 'finished' || this.#state === 'done';
  }

  judge(record: ObservedRecord): RecordVerdict {
    const state = this.#state;
    if (state === 'failed') return 'omit';
    if (state === 'done') return 'after-end';
    const isDone = record.data.trim() === '[DONE]';
    if (state === 'finished') {
      if (isDone) {
        this.#state = 'done';
        return 'relay';
      }
      if (isUsageOnly(record) && !this.#usageSent) {
        this.#usageSent = true;
        return this.clientWantsUsage ? 'relay' : 'omit';
      }
      return 'after-end';
    }
    if (hasEvent(record, 'error')) {
      this.#state = 'failed';
      return 'error';
    }
    if (isDone) {
      // `[DONE]` before any finish: the decoder reads nothing after it, the turn ends cut, and the
      // encoder's error ending brings its own `[DONE]` (R8.3). Relayed now, it would hide that error.
      this.#state = 'done';
      return 'omit';
    }
    if (hasEvent(record, 'finish')) {
      this.#state = 'finished';
      return 'relay';
    }
    if (isUsageOnly(record) && !this.clientWantsUsage) return 'omit';
    // Data the body ended inside of: the decoder skipped it as a cut (openai-node would throw on it).
    if (record.atEndOfBody && record.events.length === 0) return 'omit';
    return 'relay';
  }

  missingEnd(): string {
    return this.#state === 'finished' ? CHAT_DONE : '';
  }
}

const MESSAGE_STOP = 'event: message_stop\ndata: {"type":"message_stop"}\n\n';

/** A numeric field of a record's JSON data (a block's `index`, an item's `output_index`); undefined when there is none. */
function readIndex(data: string, key: 'index' | 'output_index'): number | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    return undefined;
  }
  const value = typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>)[key] : undefined;
  return typeof value === 'number' ? value : undefined;
}

/**
 * Blocks or items by index, as a client tracks them: each starts once, in
 * growing order, and stops once. A start, stop or delta that breaks that
 * order is a repeat the decoder ignored, and a client would act on twice
 * (the SDK adds a block per start; Claude Code makes a message per
 * content_block_stop). Read from the record's own index field, once per
 * block — never per delta that carried events.
 */
class IndexedParts {
  #last = -1;
  readonly #open = new Set<number>();

  start(index: number | undefined): boolean {
    if (index === undefined || index <= this.#last) return false;
    this.#last = index;
    this.#open.add(index);
    return true;
  }

  stop(index: number | undefined): boolean {
    return index !== undefined && this.#open.delete(index);
  }

  isOpen(index: number | undefined): boolean {
    return index !== undefined && this.#open.has(index);
  }
}

/**
 * Anthropic Messages: one `message_start`, content blocks, the
 * `message_delta` carrying the stop_reason (the terminal frame, where the
 * decoder emits `finish`), one `message_stop`. The SDK dispatches on the
 * `event:` field, so the judge reads it too.
 */
class MessagesRecordJudge implements RecordJudge {
  #state: 'open' | 'finished' | 'stopped' | 'failed' = 'open';
  #started = false;
  readonly #blocks = new IndexedParts();

  get ended(): boolean {
    return this.#state === 'finished' || this.#state === 'stopped';
  }

  judge(record: ObservedRecord): RecordVerdict {
    const state = this.#state;
    if (state === 'failed') return 'omit';
    if (state === 'stopped') return 'after-end';
    if (state === 'finished') {
      if (record.event !== 'message_stop' || record.events.length > 0) return 'after-end';
      this.#state = 'stopped';
      return 'relay';
    }
    if (hasEvent(record, 'error')) {
      this.#state = 'failed';
      return 'error';
    }
    if (record.event === 'message_start') {
      // A repeat of the open message's start (the decoder ignores it): the SDK would reset its message.
      if (this.#started) return 'omit';
      this.#started = true;
    }
    if (hasEvent(record, 'finish')) {
      this.#state = 'finished';
      return 'relay';
    }
    switch (record.event) {
      case 'message_stop':
        // No stop_reason came: the decoder ends the message unfinished and the turn ends cut (R8.3);
        // a client would take this message_stop as a complete answer.
        this.#state = 'stopped';
        return 'omit';
      case 'content_block_start':
        return this.#blocks.start(readIndex(record.data, 'index')) ? 'relay' : 'omit';
      case 'content_block_stop':
        return this.#blocks.stop(readIndex(record.data, 'index')) ? 'relay' : 'omit';
      case 'content_block_delta':
        // A delta the decoder turned into events is for a block it has open; one it ignored may be
        // for a block it does not model (server tools, citations) or a stray one.
        return record.events.length > 0 || this.#blocks.isOpen(readIndex(record.data, 'index')) ? 'relay' : 'omit';
      default:
        return 'relay';
    }
  }

  missingEnd(): string {
    return this.#state === 'finished' ? MESSAGE_STOP : '';
  }
}

/** OpenAI Responses: events up to one terminal event (`response.completed|incomplete|failed`). */
class ResponsesRecordJudge implements RecordJudge {
  #state: 'open' | 'ended' | 'failed' = 'open';
  #created = false;
  readonly #items = new IndexedParts();

  get ended(): boolean {
    return this.#state === 'ended';
  }

  judge(record: ObservedRecord): RecordVerdict {
    const state = this.#state;
    if (state === 'failed') return 'omit';
    if (state === 'ended') return 'after-end';
    if (hasEvent(record, 'error')) {
      this.#state = 'failed';
      return 'error';
    }
    if (hasEvent(record, 'finish')) {
      this.#state = 'ended';
      return 'relay';
    }
    // openai-node stops reading at `[DONE]`: before the terminal event it would hide the turn's end.
    if (record.data.trim() === '[DONE]') return 'omit';
    switch (record.event) {
      case 'response.created':
        // A repeat of the start (the decoder ignores it): a client would begin its response again.
        if (this.#created) return 'omit';
        this.#created = true;
        return 'relay';
      case 'response.output_item.added':
        return this.#items.start(readIndex(record.data, 'output_index')) ? 'relay' : 'omit';
      case 'response.output_item.done':
        return this.#items.stop(readIndex(record.data, 'output_index')) ? 'relay' : 'omit';
      default:
        return 'relay';
    }
  }

  missingEnd(): string {
    return '';
  }
}
