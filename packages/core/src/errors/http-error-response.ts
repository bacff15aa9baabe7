import type { TurnError } from './turn-error.js';

const HTTP_ERROR_MARKER = Symbol.for('turnguard.HttpErrorResponse');

/**
 * The raw failure behind a TurnError built from an HTTP response: it is the
 * `cause` (R2.1 "raw error as cause"), so the body stays reachable for the
 * 400 debug dump (R1.10) without being copied into `details`, which stats and
 * warnings may record.
 */
export class HttpErrorResponse extends Error {
  readonly [HTTP_ERROR_MARKER] = true;
  readonly status: number;
  readonly bodyText: string;

  constructor(status: number, bodyText: string) {
    super(`HTTP ${status}`);
    this.name = 'HttpErrorResponse';
    this.status = status;
    this.bodyText = bodyText;
  }

  static isInstance(value: unknown): value is HttpErrorResponse {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[HTTP_ERROR_MARKER] === true;
  }
}

/** The upstream body text behind an error, looking a few `cause` links deep. */
export function readHttpErrorBody(error: TurnError): string | undefined {
  let current: unknown = error.cause;
  for (let depth = 0; depth < 5 && current !== undefined && current !== null; depth += 1) {
    if (HttpErrorResponse.isInstance(current)) return current.bodyText;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
