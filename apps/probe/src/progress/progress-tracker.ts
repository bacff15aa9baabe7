import type { AgentLoopEvent } from '@turnguard/core';
import type { SegmentProgress } from '../probe-types.js';

/** The events the probe watches: runTurn's TurnEvents are a subset of the agent loop's events. */
export type ObservedEvent = AgentLoopEvent;

export type ProbePhase =
  | 'connecting'
  | 'thinking'
  | 'answering'
  | 'calling a tool'
  | 'waiting to retry'
  | 'recovering'
  | 'failing over'
  | 'continuing'
  | 'running tools'
  | 'finished'
  | 'failed';

/** A content-free line worth printing on its own (phase changes, retries, recovery, transitions). */
export type NoticeListener = (notice: string) => void;
/** Every phase change, for the trace's timings. */
export type PhaseListener = (phase: ProbePhase, segmentIndex: number) => void;

/**
 * Turns the event stream of one scenario run into what the terminal shows
 * (R9.2: phase, elapsed, characters per segment, retries waited). It counts
 * characters and never keeps a delta's text (R4.10).
 */
export class ProgressTracker {
  phase: ProbePhase = 'connecting';
  readonly segments: SegmentProgress[] = [];
  retries = 0;
  retryWaitMs = 0;
  toolErrors = 0;
  readonly transitions: string[] = [];
  readonly #onNotice: NoticeListener;
  readonly #onPhase: PhaseListener;
  #sampleStarts = 0;

  constructor(onNotice: NoticeListener, onPhase: PhaseListener = () => undefined) {
    this.#onNotice = onNotice;
    this.#onPhase = onPhase;
    this.#openSegment('start');
  }

  observe(event: ObservedEvent): void {
    switch (event.type) {
      case 'reasoning-delta':
        this.#current().reasoningChars += event.delta.length;
        this.#enterPhase('thinking');
        return;
      case 'text-delta':
        this.#current().textChars += event.delta.length;
        this.#enterPhase('answering');
        return;
      case 'tool-call-delta':
        this.#current().toolArgumentChars += event.delta.length;
        this.#enterPhase('calling a tool');
        return;
      case 'retry':
        this.retries += 1;
        this.retryWaitMs += event.delayMs;
        this.#closeSegment();
        this.#onNotice(`retry ${event.retryNumber ?? event.attempt}: ${event.code}${event.status === undefined ? '' : ` (HTTP ${event.status})`}, waiting ${event.delayMs} ms`);
        this.#openSegment('retry');
        this.#setPhase('waiting to retry');
        return;
      case 'recovery-start':
        this.#closeSegment();
        this.#onNotice('stream cut after thinking only: sending one bounded recovery request (R4)');
        this.#openSegment('recovery');
        this.#setPhase('recovering');
        return;
      case 'fallback': {
        const to = `${event.to.upstream}/${event.to.model}`;
        if (event.reason === 'circuit-open') {
          // No request went to the skipped model: the fallback's request is the segment already open.
          this.#onNotice(`circuit open for ${event.from.upstream}/${event.from.model}: straight to ${to} (R11.5)`);
          return;
        }
        this.#closeSegment();
        this.#onNotice(`fail-over: ${event.from.upstream}/${event.from.model} → ${to} (${event.errorCode ?? event.reason}, R11.2)`);
        this.#openSegment('fallback');
        this.#setPhase('failing over');
        return;
      }
      case 'continuation-start':
        this.#closeSegment();
        this.#onNotice(`answer ${event.reason === 'stall' ? 'stalled' : event.reason === 'malformed' ? 'broken' : 'cut'} mid-text: one continuation request with the answer so far as a prefill (R11.6)`);
        this.#openSegment('continuation');
        this.#setPhase('continuing');
        return;
      case 'sample-start':
        // Every model call after the first is a new physical request, even one that failed without output.
        this.#sampleStarts += 1;
        if (this.#sampleStarts > 1) {
          this.#closeSegment();
          this.#openSegment('next-sample');
        }
        this.#setPhase('connecting');
        return;
      case 'tool-result':
        if (event.result.isError === true) this.toolErrors += 1;
        this.#onNotice(`tool result${event.result.isError === true ? ' (error, fed back to the model)' : ''}`);
        this.#setPhase('running tools');
        return;
      case 'transition':
        this.transitions.push(event.transition.reason);
        this.#onNotice(`agent loop goes round: ${event.transition.reason}`);
        return;
      case 'error':
        this.#onNotice(`error: ${event.error.code}`);
        return;
      case 'warning':
        this.#onNotice('warning recorded');
        return;
      default:
        return;
    }
  }

  /** A fail-over scenario's next logical turn starts: its first request is a segment of its own. */
  nextTurn(): void {
    this.#closeSegment();
    this.#openSegment('start');
    this.#setPhase('connecting');
  }

  /** Called once the run has ended. */
  finish(ok: boolean): void {
    this.#closeSegment();
    this.#setPhase(ok ? 'finished' : 'failed');
  }

  /** `seg1 r4012/t0 · seg2 r120/t48`: reasoning / text (/ tool argument) characters per segment. */
  describeSegments(): string {
    return this.segments.map(describeSegment).join(' · ');
  }

  #current(): SegmentProgress {
    return this.segments[this.segments.length - 1] as SegmentProgress;
  }

  #openSegment(cause: SegmentProgress['cause']): void {
    this.segments.push({ index: this.segments.length + 1, cause, reasoningChars: 0, textChars: 0, toolArgumentChars: 0 });
  }

  #closeSegment(): void {
    const segment = this.#current();
    this.#onNotice(`segment ${describeSegment(segment)} ended`);
  }

  /** A content phase (thinking, answering, calling a tool) is also worth a notice when it starts. */
  #enterPhase(phase: ProbePhase): void {
    if (this.phase === phase) return;
    this.#setPhase(phase);
    this.#onNotice(`segment ${this.segments.length}: ${phase}`);
  }

  #setPhase(phase: ProbePhase): void {
    if (this.phase === phase) return;
    this.phase = phase;
    this.#onPhase(phase, this.segments.length);
  }
}

function describeSegment(segment: SegmentProgress): string {
  const tool = segment.toolArgumentChars > 0 ? `/a${segment.toolArgumentChars}` : '';
  return `seg${segment.index} r${segment.reasoningChars}/t${segment.textChars}${tool}`;
}
