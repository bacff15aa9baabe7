import { INTERACTIVE_RETRY_BUDGET, type RetryBudget } from '../failover/retry-budget.js';
import { PRIMARY, SECOND, chainRequest, createChainAdapter, createChainFetch, fallbackTo, type ChainNative, type ChainReply } from './fake-chain-wire.test-helper.js';
import { runTurn, type RunTurnOptions } from './run-turn.js';
import type { TurnRecord, UsageSample } from './stats-sink.js';

/** The interactive budget without its waits: every rule, no sleeping. */
export const FAST_BUDGET: RetryBudget = { ...INTERACTIVE_RETRY_BUDGET, initialDelayMs: 1, maxDelayMs: 2, burst: undefined, retryWindowMs: undefined };

/**
 * A chained turn on the fake wire (R11): the primary, one fallback to
 * `second-model`, the fast budget, its stats samples and turn records kept;
 * `options` replaces any of these.
 */
export function startChainTurn(script: Record<string, ChainReply[]>, options: Partial<RunTurnOptions<ChainNative>> = {}) {
  const wire = createChainFetch(script);
  const samples: UsageSample[] = [];
  const turns: TurnRecord[] = [];
  let id = 0;
  const run = runTurn({
    adapter: createChainAdapter('chat'),
    request: chainRequest(),
    target: { baseUrl: PRIMARY },
    upstream: 'primary',
    fetch: wire.fetch,
    stats: { recordUsage: (sample) => void samples.push(sample), recordTurn: (turn) => void turns.push(turn) },
    createId: () => `req-${++id}`,
    retryBudget: FAST_BUDGET,
    fallbacks: [fallbackTo(SECOND, 'second-model')],
    ...options,
  });
  return { run, wire, samples, turns };
}
