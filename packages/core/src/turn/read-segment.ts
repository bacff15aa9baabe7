import type { TurnError } from '../errors/turn-error.js';
import type { FinishReason } from '../types/finish-reason.js';
import type { DecodedStreamEvent, TurnEvent } from '../types/turn-event.js';
import type { Usage } from '../types/usage.js';
import type { AbortRace } from './race-abort.js';

export type SegmentEnd = 'terminal' | 'eof' | 'stream-error' | 'transport-error' | 'aborted';

/** What one streamed segment did. `reasoningText` stays in memory only (R4.10). */
export interface SegmentFacts {
  end: SegmentEnd;
  terminalFrameSeen: boolean;
  finishReason: FinishReason | undefined;
  /** The last usage the segment reported (later usage replaces earlier, R7.2). */
  usage: Usage | undefined;
  reasoningText: string;
  textProduced: boolean;
  nonWhitespaceText: boolean;
  toolCallProduced: boolean;
  /** Some content event of this segment was consumed by the host. */
  outputConsumed: boolean;
  streamError: TurnError | undefined;
  transportError: unknown;
  firstOutputAt: number | undefined;
  lastOutputAt: number | undefined;
  /** The upstream's id for this response (its first `response-metadata`), when it sent one. */
  responseId: string | undefined;
}

export interface ReadSegmentOptions {
  events: AsyncIterable<DecodedStreamEvent>;
  /** The request's abort race: an abort ends the segment at once, whatever it awaits (R1.6). */
  race: AbortRace;
  /** Hands an event to the host; resolves once consumed. */
  deliver(event: TurnEvent): Promise<void>;
  onWarning(message: string): void;
  /** The segment's response metadata; runTurn shows the first one of the turn only. */
  onMetadata(event: Extract<TurnEvent, { type: 'response-metadata' }>): void;
  now(): number;
  /** R4.5: the recovery segment's tool calls are never handed to the host. */
  forwardToolCalls: boolean;
  /** Keeps block ids of different segments apart for the host. */
  blockIdPrefix: string;
}

function isContent(event: TurnEvent): boolean {
  switch (event.type) {
    case 'text-delta':
    case 'reasoning-delta':
      return event.delta !== '';
    case 'reasoning-start':
      return event.redacted === true || event.encrypted !== undefined;
    case 'tool-call-start':
    case 'tool-call-delta':
    case 'tool-call-end':
      return true;
    default:
      return false;
  }
}

function isToolCallEvent(event: TurnEvent): boolean {
  return event.type === 'tool-call-start' || event.type === 'tool-call-delta' || event.type === 'tool-call-end';
}

function withBlockPrefix(event: TurnEvent, prefix: string): TurnEvent {
  if (prefix === '') return event;
  switch (event.type) {
    case 'text-start':
    case 'text-delta':
    case 'text-end':
    case 'reasoning-start':
    case 'reasoning-delta':
    case 'reasoning-end':
      return { ...event, id: prefix + event.id };
    default:
      return event;
  }
}

type MetadataEvent = Extract<TurnEvent, { type: 'response-metadata' }>;

function createFacts(): SegmentFacts {
  return {
    end: 'eof',
    terminalFrameSeen: false,
    finishReason: undefined,
    usage: undefined,
    reasoningText: '',
    textProduced: false,
    nonWhitespaceText: false,
    toolCallProduced: false,
    outputConsumed: false,
    streamError: undefined,
    transportError: undefined,
    firstOutputAt: undefined,
    lastOutputAt: undefined,
    responseId: undefined,
  };
}

const ignore = (): undefined => undefined;

/**
 * Reads one segment's decoded events, hands content to the host one event at
 * a time and records the facts the recovery decision needs. Usage, finish and
 * in-stream errors are kept back: runTurn emits one aggregated usage and one
 * final event per logical turn (seeds/004 "只发出一个逻辑回合的 usage 汇总").
 *
 * Aborts (R1.6) are one subscription per segment, not a race per await: the
 * stop settles the segment's promise at once — while it waits for the next
 * chunk or for the host to take an event — and the pull loop, when its
 * pending await comes back, sees the flag and leaves without touching the
 * facts again (issue 19).
 */
export function readSegment(options: ReadSegmentOptions): Promise<SegmentFacts> {
  return new Promise<SegmentFacts>((resolve, reject) => {
    new SegmentReader(options, resolve, reject).start();
  });
}

class SegmentReader {
  private readonly facts = createFacts();
  private readonly iterator: AsyncIterator<DecodedStreamEvent>;
  /** The segment's promise is settled: nothing may change `facts` any more. */
  private settled = false;
  // An attempt that fails before any content is retried (R1.1) and must leave
  // no trace with the host: its response id and empty block starts are held
  // back until its first content event (one logical response, R8.2) and
  // dropped if none comes. A terminal frame with no content releases them.
  private heldMetadata: MetadataEvent | undefined;
  private readonly heldEvents: TurnEvent[] = [];

  constructor(
    private readonly options: ReadSegmentOptions,
    private readonly resolve: (facts: SegmentFacts) => void,
    private readonly reject: (error: unknown) => void,
  ) {
    this.iterator = options.events[Symbol.asyncIterator]();
  }

  start(): void {
    this.options.race.watch(() => this.end('aborted'));
    if (this.settled) return;
    this.pull().catch((error: unknown) => {
      if (this.settled) return;
      this.settled = true;
      this.reject(error);
    });
  }

  /** Settles the segment once; every end but a plain EOF or a read failure closes the decoder. */
  private end(how: SegmentEnd): void {
    if (this.settled) return;
    this.settled = true;
    this.facts.end = how;
    if (how !== 'eof' && how !== 'transport-error') this.closeIterator();
    this.resolve(this.facts);
  }

  private closeIterator(): void {
    const { iterator } = this;
    void Promise.resolve()
      .then(() => iterator.return?.())
      .catch(ignore);
  }

  private async pull(): Promise<void> {
    const { facts, iterator } = this;
    for (;;) {
      let step: IteratorResult<DecodedStreamEvent>;
      try {
        step = await iterator.next();
      } catch (error) {
        if (!this.settled) await this.onReadFailure(error);
        return;
      }
      if (this.settled) return;
      if (step.done) return this.end('eof');
      const event = step.value;
      switch (event.type) {
        case 'stream-end':
          facts.terminalFrameSeen = event.terminalFrameSeen;
          // R4.1: a tool call no event could show (no id/name yet, a server tool) still rules out recovery.
          if (event.toolCallSeen === true) facts.toolCallProduced = true;
          if (event.terminalFrameSeen) return this.endComplete();
          // The decoder's last item: closing lets a generator run its cleanup.
          this.closeIterator();
          return this.end('eof');
        case 'usage':
          facts.usage = event.usage;
          continue;
        case 'finish':
          facts.finishReason = event.finishReason;
          continue;
        case 'error':
          // R8.12: after the terminal frame the response is complete; a bad record behind it changes nothing.
          if (facts.finishReason !== undefined) return this.endComplete();
          facts.streamError = event.error;
          return this.end('stream-error');
        case 'warning':
          this.options.onWarning(event.message);
          continue;
        case 'response-metadata':
          facts.responseId ??= event.responseId;
          if (facts.outputConsumed) this.options.onMetadata(event);
          else this.heldMetadata ??= event;
          continue;
        case 'retry':
        case 'heartbeat':
        case 'recovery-start':
        case 'tombstone':
          // Lifecycle events belong to runTurn, not to a decoder.
          continue;
        default: {
          // The per-event path: no async call of our own, one await (the host's take).
          const content = this.noteOutputEvent(event);
          if (content === undefined) continue;
          if (!this.options.forwardToolCalls && isToolCallEvent(event)) continue;
          if (!facts.outputConsumed) {
            if (!content) {
              this.heldEvents.push(event);
              continue;
            }
            if (!(await this.releaseHeld())) return;
          }
          try {
            await this.options.deliver(withBlockPrefix(event, this.options.blockIdPrefix));
          } catch (error) {
            return this.onDeliveryFailure(error);
          }
          if (this.settled) return;
          if (content) facts.outputConsumed = true;
        }
      }
    }
  }

  /**
   * R8.12 "complete means complete": a decoder emits `finish` only once the
   * protocol's terminal frame arrived, so a read that fails after it (a
   * chunked body missing its last chunk, FIN/RST, a short content-length, a
   * bad trailer: undici's `TypeError: terminated`) ends a complete segment,
   * never `STREAM_CUT`/`TRANSPORT`, and is never retried.
   */
  private async onReadFailure(error: unknown): Promise<void> {
    const { facts } = this;
    if (this.options.race.aborted) return this.end('aborted');
    if (facts.finishReason !== undefined) {
      facts.terminalFrameSeen = true;
      return this.endComplete();
    }
    facts.transportError = error;
    this.end('transport-error');
  }

  /** The terminal frame arrived: what was held for the host goes out, then the segment ends complete. */
  private async endComplete(): Promise<void> {
    this.facts.terminalFrameSeen = true;
    if (await this.releaseHeld()) this.end('terminal');
  }

  /**
   * Records what a content or block event tells about the segment: true when
   * it is content (R4.1), false for a block boundary, undefined for an event
   * type this version does not know (skipped, never treated as output).
   */
  private noteOutputEvent(event: Exclude<TurnEvent, { type: NonOutputType }>): boolean | undefined {
    const { facts } = this;
    switch (event.type) {
      case 'tool-call-start':
      case 'tool-call-delta':
      case 'tool-call-end':
        facts.toolCallProduced = true;
        break;
      case 'text-delta':
        if (event.delta !== '') facts.textProduced = true;
        // trim() allocates: once one non-whitespace delta was seen, the rest need no check.
        if (!facts.nonWhitespaceText && event.delta.trim() !== '') facts.nonWhitespaceText = true;
        break;
      case 'reasoning-delta':
        facts.reasoningText += event.delta;
        break;
      case 'text-start':
      case 'text-end':
      case 'reasoning-start':
      case 'reasoning-end':
        break;
      default: {
        const _exhaustive: never = event;
        void _exhaustive;
        return undefined;
      }
    }
    const content = isContent(event);
    if (content) {
      const at = this.options.now();
      facts.firstOutputAt ??= at;
      facts.lastOutputAt = at;
    }
    return content;
  }

  private async releaseHeld(): Promise<boolean> {
    const { heldEvents } = this;
    if (this.heldMetadata !== undefined) this.options.onMetadata(this.heldMetadata);
    this.heldMetadata = undefined;
    for (let next = heldEvents.shift(); next !== undefined; next = heldEvents.shift()) {
      if (!(await this.handOver(next))) return false;
    }
    return !this.settled;
  }

  /** Hands one held event to the host; false when the segment must end (abort, or the host stopped iterating). */
  private async handOver(event: TurnEvent): Promise<boolean> {
    if (this.settled) return false;
    try {
      await this.options.deliver(withBlockPrefix(event, this.options.blockIdPrefix));
    } catch (error) {
      this.onDeliveryFailure(error);
      return false;
    }
    return !this.settled;
  }

  /** The delivery rejected: the host stopped iterating (ConsumerStoppedError). */
  private onDeliveryFailure(error: unknown): void {
    if (this.settled) return;
    this.facts.transportError = error;
    this.end('aborted');
  }
}

type NonOutputType =
  | 'stream-end'
  | 'usage'
  | 'finish'
  | 'error'
  | 'warning'
  | 'response-metadata'
  | 'retry'
  | 'heartbeat'
  | 'recovery-start'
  | 'tombstone';
