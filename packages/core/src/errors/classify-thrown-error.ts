import { TurnError } from './turn-error.js';
import { createAbortedError } from './create-aborted-error.js';
import { classifyHttpError } from './classify-http-error.js';
import type { HeadersLike } from '../retry/read-header.js';

/**
 * Error codes of a connection that failed or dropped (R1.1). `UND_ERR_SOCKET`
 * is undici's "other side closed" behind `TypeError: terminated`
 * (reference/toolchain.md, measured); the E* codes come from node:net.
 */
const TRANSPORT_CODES: ReadonlySet<string> = new Set([
  'ECONNRESET',
  'EPIPE',
  'ECONNREFUSED',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/**
 * Messages that mean a dropped connection: undici `TypeError: terminated` /
 * `fetch failed`, node:http `socket hang up`, the SDKs' connection errors,
 * and the WHATWG-fetch wording `Failed to fetch` (Chromium, and msw's
 * `HttpResponse.error()` network error).
 */
const TRANSPORT_MESSAGES = /^(terminated|fetch failed|failed to fetch|socket hang up|other side closed|connection error\.?)$/i;

/** How many `cause` links are followed; undici nests two or three. */
const MAX_CAUSE_DEPTH = 5;

/**
 * Any thrown value → one TurnError (R2.1), the raw value kept as `cause`.
 * Messages are fixed texts, never the raw message (which may quote content).
 *
 * Anything unrecognised becomes kind `server`, code `UNKNOWN`, NOT retryable:
 * a bug in an adapter must not be resent ten times.
 */
export function classifyThrownError(thrown: unknown): TurnError {
  if (TurnError.isInstance(thrown)) return thrown;

  const chain = collectCauseChain(thrown);
  const name = chain.map(readName).find((value) => value !== undefined);

  // DOMException names from AbortSignal (abort() vs AbortSignal.timeout()), and the SDKs' own classes.
  if (name === 'TimeoutError' || name === 'APIConnectionTimeoutError') {
    return new TurnError({ kind: 'timeout', message: 'The request timed out.', cause: thrown });
  }
  if (name === 'AbortError' || name === 'APIUserAbortError') return createAbortedError(undefined, thrown);

  const httpError = readSdkHttpError(thrown);
  if (httpError !== undefined) {
    return classifyHttpError(httpError.status, httpError.headers, httpError.bodyText).with({ cause: thrown });
  }

  const transportCode = chain.map(readCode).find((code) => code !== undefined && TRANSPORT_CODES.has(code));
  const transportMessage = chain.some((link) => TRANSPORT_MESSAGES.test(readMessage(link) ?? ''));
  if (transportCode !== undefined || transportMessage || name === 'APIConnectionError') {
    return new TurnError({
      kind: 'transport',
      message:
        transportCode === undefined
          ? 'The connection to the upstream failed.'
          : `The connection to the upstream failed (${transportCode}).`,
      details: transportCode === undefined ? {} : { errorCode: transportCode },
      cause: thrown,
    });
  }

  return new TurnError({
    kind: 'server',
    code: 'UNKNOWN',
    retryable: false,
    message: name === undefined ? 'Unexpected failure.' : `Unexpected ${name}.`,
    cause: thrown,
  });
}

function collectCauseChain(thrown: unknown): unknown[] {
  const chain: unknown[] = [];
  let current = thrown;
  while (chain.length < MAX_CAUSE_DEPTH && typeof current === 'object' && current !== null && !chain.includes(current)) {
    chain.push(current);
    current = (current as { cause?: unknown }).cause;
  }
  return chain;
}

function readName(value: unknown): string | undefined {
  const name = (value as { name?: unknown }).name;
  // Plain `Error`/`TypeError` names say nothing; keep looking down the chain.
  return typeof name === 'string' && name !== 'Error' && name !== 'TypeError' ? name : undefined;
}

function readCode(value: unknown): string | undefined {
  const code = (value as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

function readMessage(value: unknown): string | undefined {
  const message = (value as { message?: unknown }).message;
  return typeof message === 'string' ? message.trim() : undefined;
}

/**
 * The official SDKs throw `APIError`s carrying `status`, `headers` and the
 * parsed body as `error` (openai-node / anthropic-sdk-typescript src/core/error.ts);
 * read by shape so core imports no SDK.
 */
function readSdkHttpError(
  thrown: unknown,
): { status: number; headers: HeadersLike | undefined; bodyText: string } | undefined {
  if (typeof thrown !== 'object' || thrown === null) return undefined;
  const { status, headers, error } = thrown as { status?: unknown; headers?: unknown; error?: unknown };
  if (typeof status !== 'number' || status < 400 || status > 599) return undefined;
  let bodyText = '';
  try {
    bodyText = error === undefined ? '' : JSON.stringify(error);
  } catch {
    bodyText = '';
  }
  return {
    status,
    headers: typeof headers === 'object' && headers !== null ? (headers as HeadersLike) : undefined,
    bodyText,
  };
}
