import { TurnError } from '../errors/turn-error.js';

const FALLBACK_MARKER = Symbol.for('turnguard.FallbackSignal');

export const FALLBACK_TRIGGERED = 'FALLBACK_TRIGGERED';

/**
 * R1.9: thrown by `withRetry` after consecutive overloads when a fallback
 * model is configured. The retry layer never switches models itself; the
 * agent loop catches this and switches models (R3.9).
 *
 * It is a TurnError (kind `overloaded`, code `FALLBACK_TRIGGERED`, not
 * retryable) so code that only knows TurnError still handles it sanely.
 */
export class FallbackSignal extends TurnError {
  readonly [FALLBACK_MARKER] = true;
  readonly fallbackModel: string;
  readonly consecutiveOverloads: number;

  constructor(options: { fallbackModel: string; consecutiveOverloads: number; lastError: TurnError }) {
    super({
      kind: 'overloaded',
      code: FALLBACK_TRIGGERED,
      retryable: false,
      message: `Upstream overloaded ${options.consecutiveOverloads} times in a row; falling back to ${options.fallbackModel}.`,
      status: options.lastError.status,
      requestId: options.lastError.requestId,
      details: { fallbackModel: options.fallbackModel, consecutiveOverloads: options.consecutiveOverloads },
      cause: options.lastError,
    });
    this.name = 'FallbackSignal';
    this.fallbackModel = options.fallbackModel;
    this.consecutiveOverloads = options.consecutiveOverloads;
  }

  /** Survives duplicate package copies, like `TurnError.isInstance`. */
  static override isInstance(value: unknown): value is FallbackSignal {
    return (
      typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[FALLBACK_MARKER] === true
    );
  }
}
