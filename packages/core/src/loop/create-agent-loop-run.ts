import { TurnError } from '../errors/turn-error.js';
import type { AgentLoopEvent, AgentLoopResult, AgentLoopRun } from './loop-types.js';
import { LazyResultPromise } from '../internal/lazy-result-promise.js';

/** Why the loop's signal fires when the host stops iterating. */
export const CONSUMER_STOPPED_REASON = 'consumer-stopped';

export interface LoopDriver {
  start(): AsyncGenerator<AgentLoopEvent, AgentLoopResult>;
  /** Aborts the loop's own signal: the loop then ends itself (pairing repaired, R3.10). */
  stop(): void;
  /** A result for the impossible case that the loop itself threw. */
  describeCrash(error: TurnError): AgentLoopResult;
}

/**
 * What the host holds. The loop starts on the first pull (or when `result`
 * is awaited). If the host stops iterating early, the loop is aborted and
 * drained to its own end, so `result` always resolves with a terminal and
 * the transcript stays paired; it never rejects.
 */
export function createAgentLoopRun(driver: LoopDriver): AgentLoopRun {
  let resolveResult!: (result: AgentLoopResult) => void;
  const settled = new Promise<AgentLoopResult>((resolve) => {
    resolveResult = resolve;
  });
  let generator: AsyncGenerator<AgentLoopEvent, AgentLoopResult> | undefined;

  const pull = async (): Promise<IteratorResult<AgentLoopEvent, AgentLoopResult>> => {
    generator ??= driver.start();
    try {
      const step = await generator.next();
      if (step.done === true) resolveResult(step.value);
      return step;
    } catch (thrown) {
      const error = TurnError.isInstance(thrown)
        ? thrown
        : new TurnError({ kind: 'server', code: 'AGENT_LOOP_FAILURE', retryable: false, message: 'The agent loop failed unexpectedly.', cause: thrown });
      const result = driver.describeCrash(error);
      resolveResult(result);
      return { done: true, value: result };
    }
  };

  const drainToEnd = async (): Promise<void> => {
    for (;;) {
      const step = await pull();
      if (step.done === true) return;
    }
  };

  async function* iterate(): AsyncGenerator<AgentLoopEvent, void, undefined> {
    let finished = false;
    try {
      for (;;) {
        const step = await pull();
        if (step.done === true) {
          finished = true;
          return;
        }
        yield step.value;
      }
    } finally {
      if (!finished) {
        driver.stop();
        await drainToEnd();
      }
    }
  }

  let iterator: AsyncGenerator<AgentLoopEvent, void, undefined> | undefined;
  let drained: Promise<void> | undefined;
  return {
    [Symbol.asyncIterator]: () => {
      iterator ??= iterate();
      return iterator;
    },
    // Nobody iterates: awaiting the result runs the loop to its end so the result exists.
    result: new LazyResultPromise(settled, {
      ensureRunning: () => {
        if (iterator === undefined) drained ??= drainToEnd();
      },
    }),
  };
}
