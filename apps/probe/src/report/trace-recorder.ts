import type { Protocol, UsageSample } from '@turnguard/core';
import type { ObservedEvent } from '../progress/progress-tracker.js';

/** One line of `<timestamp>-trace.jsonl`: when, which run, what — never content (R4.10, R9.2). */
export interface TraceEntry {
  /** Milliseconds since the probe started. */
  t: number;
  scenario: string;
  protocol: Protocol;
  event: string;
  [field: string]: unknown;
}

/**
 * The content-free facts of an event, or `undefined` for events that only
 * carry content (deltas are counted per segment instead). Every field is
 * picked by name, so a new content field on an event cannot leak in.
 */
export function describeEventForTrace(event: ObservedEvent): Record<string, unknown> | undefined {
  switch (event.type) {
    case 'retry':
      return { attempt: event.retryNumber, delayMs: event.delayMs, kind: event.kind, code: event.code, status: event.status };
    case 'recovery-start':
      return { recoveryId: event.recoveryId };
    case 'fallback':
      // Upstream and model names, a reason and a code: content-free (R11.7, R9.2).
      return { from: `${event.from.upstream}/${event.from.model}`, to: `${event.to.upstream}/${event.to.model}`, toProtocol: event.to.protocol, reason: event.reason, code: event.errorCode };
    case 'continuation-start':
      return { continuationId: event.continuationId, to: `${event.to.upstream}/${event.to.model}`, reason: event.reason };
    case 'finish':
      return { finishReason: event.finishReason.unified, rawFinishReason: event.finishReason.raw };
    case 'error':
      return { kind: event.error.kind, code: event.error.code, status: event.error.status, retryable: event.error.retryable };
    case 'heartbeat':
      return { waitedMs: event.waitedMs, remainingMs: event.remainingMs };
    case 'usage':
      return { usage: event.usage };
    case 'tool-call-start':
    case 'tool-call-end':
      return { toolCallId: event.toolCallId };
    case 'tool-result':
      return { isError: event.result.isError === true };
    case 'transition':
      return { reason: event.transition.reason };
    case 'terminal':
      return { reason: event.terminal.reason };
    case 'sample-start':
    case 'tombstone':
    case 'text-start':
    case 'text-end':
    case 'reasoning-start':
    case 'reasoning-end':
    case 'response-metadata':
    case 'message':
    case 'warning':
      return {};
    case 'text-delta':
    case 'reasoning-delta':
    case 'tool-call-delta':
      return undefined;
    default: {
      const _exhaustive: never = event;
      return _exhaustive;
    }
  }
}

export class TraceRecorder {
  readonly entries: TraceEntry[] = [];
  readonly #startedAt: number;
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
    this.#startedAt = now();
  }

  record(scenario: string, protocol: Protocol, event: string, fields: Record<string, unknown> = {}): void {
    this.entries.push({ t: this.#now() - this.#startedAt, scenario, protocol, event, ...fields });
  }

  recordEvent(scenario: string, protocol: Protocol, event: ObservedEvent): void {
    const fields = describeEventForTrace(event);
    if (fields !== undefined) this.record(scenario, protocol, event.type, fields);
  }

  /** A stats sample is content-free by construction (core's UsageSample, R6.1). */
  recordSample(scenario: string, protocol: Protocol, sample: UsageSample): void {
    this.record(scenario, protocol, 'stats-sample', { sample });
  }
}
