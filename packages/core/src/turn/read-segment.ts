import type { TurnError } from '../errors/turn-error.js';
import type { FinishReason } from '../types/finish-reason.js';
import type { DecodedStreamEvent, TurnEvent } from '../types/turn-event.js';
import type { Usage } from '../types/usage.js';
import { ABORTED, type AbortRace } from './race-abort.js';

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
  /** The request's abort race: every await here ends at once on abort (R1.6). */
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

/**
 * Reads one segment's decoded events, hands content to the host one event at
 * a time and records the facts the recovery decision needs. Usage, finish and
 * in-stream errors are kept back: runTurn emits one aggregated usage and one
 * final event per logical turn (seeds/004 "只发出一个逻辑回合的 usage 汇总").
 */
export async function readSegment(options: ReadSegmentOptions): Promise<SegmentFacts> {
  const { race, now } = options;
  const { signal } = race;
  const facts: SegmentFacts = {
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
  const iterator = options.events[Symbol.asyncIterator]();
  const closeIterator = (): void => {
    void Promise.resolve()
      .then(() => iterator.return?.())
      .catch(() => undefined);
  };

  /** Hands one event to the host; false when the segment must end (abort, or the host stopped iterating). */
  const handOver = async (event: TurnEvent): Promise<boolean> => {
    try {
      const raced = await race.race(options.deliver(withBlockPrefix(event, options.blockIdPrefix)));
      if (raced !== ABORTED) return true;
      facts.end = 'aborted';
    } catch (error) {
      facts.end = 'aborted';
      facts.transportError = error;
    }
    closeIterator();
    return false;
  };

  // An attempt that fails before any content is retried (R1.1) and must leave
  // no trace with the host: its response id and empty block starts are held
  // back until its first content event (one logical response, R8.2) and
  // dropped if none comes. A terminal frame with no content releases them.
  let heldMetadata: Extract<TurnEvent, { type: 'response-metadata' }> | undefined;
  const heldEvents: TurnEvent[] = [];
  const releaseHeld = async (): Promise<boolean> => {
    if (heldMetadata !== undefined) options.onMetadata(heldMetadata);
    heldMetadata = undefined;
    for (let next = heldEvents.shift(); next !== undefined; next = heldEvents.shift()) {
      if (!(await handOver(next))) return false;
    }
    return true;
  };

  for (;;) {
    let step: IteratorResult<DecodedStreamEvent>;
    try {
      const raced = await race.race(iterator.next());
      if (raced === ABORTED) {
        facts.end = 'aborted';
        closeIterator();
        return facts;
      }
      step = raced;
    } catch (error) {
      facts.end = signal.aborted ? 'aborted' : 'transport-error';
      facts.transportError = error;
      return facts;
    }
    if (step.done) return facts;
    const event = step.value;

    switch (event.type) {
      case 'stream-end':
        facts.terminalFrameSeen = event.terminalFrameSeen;
        // R4.1: a tool call no event could show (no id/name yet, a server tool) still rules out recovery.
        if (event.toolCallSeen === true) facts.toolCallProduced = true;
        if (event.terminalFrameSeen && !(await releaseHeld())) return facts;
        facts.end = event.terminalFrameSeen ? 'terminal' : 'eof';
        closeIterator();
        return facts;
      case 'usage':
        facts.usage = event.usage;
        continue;
      case 'finish':
        facts.finishReason = event.finishReason;
        continue;
      case 'error':
        facts.streamError = event.error;
        facts.end = 'stream-error';
        closeIterator();
        return facts;
      case 'warning':
        options.onWarning(event.message);
        continue;
      case 'response-metadata':
        facts.responseId ??= event.responseId;
        if (facts.outputConsumed) options.onMetadata(event);
        else heldMetadata ??= event;
        continue;
      case 'retry':
      case 'heartbeat':
      case 'recovery-start':
      case 'tombstone':
        // Lifecycle events belong to runTurn, not to a decoder.
        continue;
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
        // An event type this version does not know is skipped, never treated as output.
        const _exhaustive: never = event;
        void _exhaustive;
        continue;
      }
    }

    const content = isContent(event);
    if (content) {
      const at = now();
      facts.firstOutputAt ??= at;
      facts.lastOutputAt = at;
    }
    if (!options.forwardToolCalls && isToolCallEvent(event)) continue;
    if (!facts.outputConsumed) {
      if (!content) {
        heldEvents.push(event);
        continue;
      }
      if (!(await releaseHeld())) return facts;
    }
    if (!(await handOver(event))) return facts;
    if (content) facts.outputConsumed = true;
  }
}
