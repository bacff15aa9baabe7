import type { DeliveredOutput } from '../failover/decide-failover.js';
import type { RetryHistory } from '../failover/retry-budget.js';
import type { SegmentFacts } from '../stream/segment-facts.js';
import type { ChainHop } from '../types/turn-event.js';
import type { ChainDestination, TurnChain } from './failover-options.js';

/** How one chain entry went, content-free (R11.7, R4.10). */
export interface ChainEntry {
  upstream: string;
  model: string;
  protocol: ChainHop['protocol'];
  /** `answered`: its answer ended the turn; `failed`: the turn moved on (or ended) after it; `skipped`: never sent. */
  outcome: 'answered' | 'failed' | 'skipped';
  /** Segment-1 requests sent to this entry (its retries); a recovery or continuation it served is a sample of its own. */
  attempts: number;
  /** The code of its last failure, when it failed. */
  errorCode?: string;
  /** Why it was skipped: `circuit-open`, `no-prefill`, or what another family cannot answer (`previous_response_id`, `tool:web_search`…). */
  skippedBecause?: string;
}

const DELIVERED_ORDER: readonly DeliveredOutput[] = ['nothing', 'reasoning', 'visible-text', 'tool-call'];

/** What the host has of one attempt's output (R11.2, R11.6): tool call over text over thinking. */
export function deliveredBy(facts: SegmentFacts | undefined): DeliveredOutput {
  if (facts === undefined || !facts.outputConsumed) return 'nothing';
  if (facts.toolCallProduced) return 'tool-call';
  if (facts.textProduced) return 'visible-text';
  return 'reasoning';
}

export function hopOf(destination: ChainDestination): ChainHop {
  return { upstream: destination.upstream, model: destination.model, protocol: destination.protocol };
}

/**
 * What a fail-over chain has done so far in one turn: what the host has
 * received (decideFailover's `delivered`), when each physical request
 * started (the budget's burst and window rules), each entry's record, the
 * one continuation, and who answered. finishTurn reads the summary.
 */
export class ChainRun {
  readonly chain: TurnChain;
  delivered: DeliveredOutput = 'nothing';
  readonly attemptStartTimes: number[] = [];
  readonly entries: ChainEntry[] = [];
  /** The last destination a request went to: a fallback names it as the one it stands in for. */
  lastTried: ChainDestination | undefined;
  /** Turns moved to another destination (R11.7). */
  fallbacks = 0;
  continuations = 0;
  /** The destination whose answer ended the turn well. */
  answeredBy: ChainDestination | undefined;
  /** The answer text the host has, and the text block it has open, for a continuation (R11.6). */
  visibleText = '';
  openTextBlockId: string | undefined;
  /** Requests whose output a host that held it dropped (decision 0430): never the answer's usage (R5). */
  readonly droppedRequestIds = new Set<string>();

  constructor(chain: TurnChain) {
    this.chain = chain;
  }

  /** An attempt's output, over the whole turn. */
  noteOutput(facts: SegmentFacts | undefined): void {
    const delivered = deliveredBy(facts);
    if (DELIVERED_ORDER.indexOf(delivered) > DELIVERED_ORDER.indexOf(this.delivered)) this.delivered = delivered;
    if (facts !== undefined && facts.outputConsumed && facts.visibleText !== '') {
      this.visibleText += facts.visibleText;
      this.openTextBlockId = facts.openTextBlockId;
    }
  }

  /**
   * A held turn's failed attempt (runTurn's `outputHeldUntilEnd`): the host
   * drops what it collected, so the chain goes on as if nothing had reached it.
   */
  dropOutput(requestId: string): void {
    this.droppedRequestIds.add(requestId);
    this.delivered = 'nothing';
    this.visibleText = '';
    this.openTextBlockId = undefined;
  }

  /** The turn ended well: the last destination asked answered it. */
  answer(): void {
    const last = this.lastTried;
    if (last === undefined) return;
    this.answeredBy = last;
    this.entryFor(last).outcome = 'answered';
  }

  entryFor(destination: ChainDestination): ChainEntry {
    let entry = this.entries.find((each) => each.upstream === destination.upstream && each.model === destination.model);
    if (entry === undefined) {
      entry = { upstream: destination.upstream, model: destination.model, protocol: destination.protocol, outcome: 'failed', attempts: 0 };
      this.entries.push(entry);
    }
    return entry;
  }

  skip(destination: ChainDestination, because: string): void {
    const entry = this.entryFor(destination);
    if (entry.attempts === 0) Object.assign(entry, { outcome: 'skipped', skippedBecause: because });
  }

  /** The budget's view of the turn for one destination (R11.3). */
  history(turnStartedAt: number, attemptsOnTarget: number, consecutiveCountedFailures: number): RetryHistory {
    return { turnStartedAt, attemptStartTimes: this.attemptStartTimes, attemptsOnTarget, consecutiveCountedFailures };
  }

  /** The model a request to `destination` stands in for (R11.7): the last one tried before it, else the host's own. */
  fallbackFrom(destination: ChainDestination): string | undefined {
    if (destination.index === 0) return undefined;
    const before = this.lastTried !== undefined && this.lastTried !== destination ? this.lastTried : this.chain.destinations[0];
    return before?.model;
  }
}
