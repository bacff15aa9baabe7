import type { Protocol } from '@turnguard/core';
import type { ScenarioBuilder } from '../scenario/builder.js';

/**
 * One scripted answer of the fault upstream (R11 acceptance): a healthy
 * answer, or one of the provider faults a fail-over must survive. Each is
 * rendered in the protocol the request came in on, with the testkit's wire
 * builders, so the bytes are the ones the adapters see from real providers.
 * A non-streaming (JSON) request that gets a cut, a stall or a malformed
 * answer receives the first half of the JSON body, then the socket is
 * destroyed, held open, or closed.
 */
export type Fault =
  /** A complete answer; `build` picks the steps (default: a short text answer with usage). */
  | { kind: 'answer'; build?: (protocol: Protocol) => ScenarioBuilder<Protocol> }
  /** An HTTP error in the protocol's own shape; `retryAfter` is sent verbatim as `retry-after`, `retryAfterMs` as `retry-after-ms` (OpenAI's). */
  | { kind: 'http-error'; status: number; retryAfter?: string; retryAfterMs?: number; type?: string; code?: string; message?: string }
  /** The socket is destroyed before any response header (ECONNRESET at the client). */
  | { kind: 'reset-before-headers' }
  /** The request is read and never answered: no header, no byte, the socket stays open. */
  | { kind: 'no-answer' }
  /** Headers at once, then nothing for `delayMs` before the first body record. */
  | { kind: 'slow-first-token'; delayMs: number }
  /** The first `afterEvents` records (default half of the content), then the socket is destroyed, or closed (`eof`). */
  | { kind: 'cut'; afterEvents?: number; how?: 'destroy' | 'eof' }
  /** The first `afterEvents` records, then silence on an open socket. */
  | { kind: 'stall'; afterEvents: number }
  /** An undecodable record after `afterEvents` records; the rest of the answer follows. */
  | { kind: 'malformed'; afterEvents: number }
  /** The whole answer without its final sentinel (Chat `[DONE]`, Messages `message_stop`); Responses has none to drop. */
  | { kind: 'no-sentinel' }
  /** The provider's context-length 400 (OpenAI `context_length_exceeded`, Anthropic "prompt is too long"). */
  | { kind: 'context-length' }
  /** A content-filter refusal: OpenAI/Azure 400 `content_filter`; Anthropic has no such 400 and answers `stop_reason: "refusal"`. */
  | { kind: 'content-filter' }
  /** A target's 400 refusing an assistant prefill (Anthropic 4.6+, llama.cpp with thinking on). */
  | { kind: 'prefill-refused' };

/** What a rule is told about the request it answers. */
export interface FaultContext {
  protocol: Protocol;
  /** The model named in the request body. */
  model: string;
  /** 0 for the first request this model received, then 1, 2, … */
  index: number;
  /** The fault upstream's clock (injectable, so "down for a minute" runs on fake time). */
  now: number;
  body: unknown;
}

export type FaultRule = (context: FaultContext) => Fault;

/** Builders, so scripts read as the catalogue does. */
export const fault = {
  ok: (build?: (protocol: Protocol) => ScenarioBuilder<Protocol>): Fault => (build === undefined ? { kind: 'answer' } : { kind: 'answer', build }),
  rateLimited: (options: { retryAfterSeconds?: number; retryAfterMs?: number } = {}): Fault => ({
    kind: 'http-error',
    status: 429,
    ...(options.retryAfterSeconds === undefined ? {} : { retryAfter: String(options.retryAfterSeconds) }),
    ...(options.retryAfterMs === undefined ? {} : { retryAfterMs: options.retryAfterMs }),
  }),
  serverError: (status = 500): Fault => ({ kind: 'http-error', status }),
  unavailable: (): Fault => ({ kind: 'http-error', status: 503 }),
  overloaded: (): Fault => ({ kind: 'http-error', status: 529, type: 'overloaded_error', message: 'Overloaded' }),
  resetBeforeHeaders: (): Fault => ({ kind: 'reset-before-headers' }),
  noAnswer: (): Fault => ({ kind: 'no-answer' }),
  slowFirstToken: (delayMs: number): Fault => ({ kind: 'slow-first-token', delayMs }),
  cut: (options: { afterEvents?: number; how?: 'destroy' | 'eof' } = {}): Fault => ({ kind: 'cut', ...options }),
  stall: (afterEvents: number): Fault => ({ kind: 'stall', afterEvents }),
  malformed: (afterEvents: number): Fault => ({ kind: 'malformed', afterEvents }),
  noSentinel: (): Fault => ({ kind: 'no-sentinel' }),
  contextLength: (): Fault => ({ kind: 'context-length' }),
  contentFilter: (): Fault => ({ kind: 'content-filter' }),
  prefillRefused: (): Fault => ({ kind: 'prefill-refused' }),
  /** "Down for a while, then healthy", on the upstream's clock: `down` until `until`, then `then`. */
  downUntil: (until: number, down: Fault = { kind: 'http-error', status: 503 }, then: Fault = { kind: 'answer' }): FaultRule =>
    ({ now }) => (now < until ? down : then),
};
