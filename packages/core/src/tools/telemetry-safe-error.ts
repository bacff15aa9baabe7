const MARKER = Symbol.for('turnguard.TelemetrySafeError');
const MAX_SAFE_MESSAGE_LENGTH = 200;

/**
 * An error whose `safeMessage` the tool author declares free of user content,
 * so telemetry may record it (R3.12). The ordinary `message` still goes to the
 * model in the tool result and may hold anything.
 */
export class TelemetrySafeError extends Error {
  readonly [MARKER] = true;
  readonly safeMessage: string;

  constructor(message: string, safeMessage: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TelemetrySafeError';
    this.safeMessage = safeMessage.slice(0, MAX_SAFE_MESSAGE_LENGTH);
  }

  /** Identity by a `Symbol.for` marker: survives duplicate package copies. */
  static isInstance(value: unknown): value is TelemetrySafeError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
  }
}
