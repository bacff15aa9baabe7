import { TurnError } from '@turnguard/core';

/** The TurnError a synchronous call throws (config validation tests). */
export function errorOf(run: () => unknown): TurnError {
  try {
    run();
  } catch (error) {
    if (TurnError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a TurnError');
}
