import { ERROR_KINDS, isRetryableByDefault, type ErrorKind } from './error-kind.js';

const MARKER = Symbol.for('turnguard.TurnError');

export interface TurnErrorOptions {
  kind: ErrorKind;
  message: string;
  /** Stable upper-case code; defaults to the kind's code (R2.1). */
  code?: string;
  /** Decided when the error is built; defaults by kind (R1.1, R1.2). */
  retryable?: boolean;
  status?: number;
  requestId?: string;
  /** Server-directed wait, when the upstream gave one (R1.3). */
  retryAfterMs?: number;
  /** Extra, content-free facts (debug dump path, pairing diagnostic, segment…). */
  details?: Record<string, unknown>;
  cause?: unknown;
}

/**
 * The one error type of turnguard (R2.1). Identity is checked with
 * `TurnError.isInstance`, which survives duplicate copies of the package
 * (a `Symbol.for` marker instead of `instanceof`).
 */
export class TurnError extends Error {
  readonly [MARKER] = true;
  readonly kind: ErrorKind;
  readonly code: string;
  readonly retryable: boolean;
  readonly status: number | undefined;
  readonly requestId: string | undefined;
  readonly retryAfterMs: number | undefined;
  readonly details: Readonly<Record<string, unknown>>;

  constructor(options: TurnErrorOptions) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'TurnError';
    this.kind = options.kind;
    this.code = options.code ?? ERROR_KINDS[options.kind];
    // User abort is always kind 'aborted', code 'ABORTED' and never retried (R2.1, R1.6).
    this.retryable = options.kind === 'aborted' ? false : (options.retryable ?? isRetryableByDefault(options.kind));
    this.status = options.status;
    this.requestId = options.requestId;
    this.retryAfterMs = options.retryAfterMs;
    this.details = options.details ?? {};
  }

  static isInstance(value: unknown): value is TurnError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
  }

  /** A copy with some fields changed; errors are otherwise immutable. */
  with(changes: Partial<TurnErrorOptions>): TurnError {
    return new TurnError({
      kind: this.kind,
      message: this.message,
      code: this.code,
      retryable: this.retryable,
      status: this.status,
      requestId: this.requestId,
      retryAfterMs: this.retryAfterMs,
      details: { ...this.details },
      cause: this.cause,
      ...changes,
    });
  }
}
