import type { ServerResponse } from 'node:http';
import type { Protocol, TurnError } from '@turnguard/core';
import { sendProtocolError } from '../http/send-json.js';
import { selectRelayedResponseHeaders } from './forwarded-headers.js';
import type { UpstreamResponses } from './record-upstream-responses.js';

/**
 * A turn's final failure as an HTTP answer (no SSE sent yet). When it is the
 * upstream's own HTTP error (a 400, a 429 or 5xx whose retries ran out) the
 * client gets that response as it came — status, headers, body — so the
 * SDK's `err.code`, `err.param`, `err.requestID` are the direct ones (R8.6);
 * Codex branches on `context_length_exceeded`. Otherwise (a cut, a time
 * limit, a transport failure) the gateway's own error in the protocol's
 * shape, with the last upstream response's headers (its request id, rate
 * limits: what the client quotes to support, as a streamed failure keeps
 * them on its 200), decision 0236. Both carry `x-should-retry: false`
 * (R8.10, decision 0231).
 */
export function sendFinalFailure(response: ServerResponse, protocol: Protocol, error: TurnError, upstream: UpstreamResponses): void {
  if (response.headersSent || response.destroyed) return;
  const seen = upstream.lastError;
  // Relayed as it came only from an upstream of the client's own family: another's body is not in its protocol's shape (R11.1).
  const isUpstreamsOwn =
    seen !== undefined && upstream.last === seen && seen.errorBody !== undefined && error.kind !== 'stream_cut' && error.status === seen.status && (seen.protocol === undefined || seen.protocol === protocol);
  if (!isUpstreamsOwn) {
    const seenHeaders = upstream.last === undefined ? {} : selectRelayedResponseHeaders(upstream.last.headers);
    // Nothing of the answer reached this client (no SSE was sent; a JSON answer is whole or absent): what got part of it was the gateway.
    sendProtocolError(response, protocol, wordFor(error, 'gateway'), undefined, seenHeaders);
    return;
  }
  const body = seen.errorBody!;
  response.writeHead(seen.status, {
    ...selectRelayedResponseHeaders(seen.headers),
    'content-type': seen.headers['content-type'] ?? 'application/json',
    'content-length': String(Buffer.byteLength(body)),
    // The gateway already retried what was retryable: a resend by the client only repeats the turn.
    'x-should-retry': 'false',
  });
  response.end(body);
}

/**
 * core words its errors for the program that called runTurn, "the host";
 * through the gateway the reader is the client (the SDK or CLI that sent the
 * request), so every failure the gateway writes, as JSON or in-stream, names
 * it so (R8.3) — except in an answer sent before any SSE, which no part of
 * the answer reached: there the gateway is what read it.
 */
export function wordForClient(error: TurnError): TurnError {
  return wordFor(error, 'client');
}

function wordFor(error: TurnError, reader: 'client' | 'gateway'): TurnError {
  const message = error.message.replace(/\b([Tt]he) host('s)?\b/g, (_match, article: string, possessive: string | undefined) => `${article} ${reader}${possessive ?? ''}`);
  return message === error.message ? error : error.with({ message });
}

/**
 * R8.10: a turn that failed after output is final — the gateway already
 * retried and recovered what it could, and a resend as is runs (and bills)
 * the whole turn again. After a stream's headers left, `x-should-retry`
 * cannot say so; this error, encoded by the adapters, can: kind
 * `invalid_request` becomes Chat's and Messages' `invalid_request_error` and
 * Responses' `invalid_prompt`, the in-stream shapes Claude Code, Codex,
 * opencode (the AI SDK) and Qwen Code each stop on (decision 0360). The
 * message says what happened in plain words and keeps turnguard's code
 * (`STREAM_CUT`, `TIMEOUT`…); it leaves out the upstream's cause, whose words
 * ("overloaded", "server error") some clients read as "resend".
 */
export function toFinalFailure(error: TurnError): TurnError {
  const { upstreamCode: _code, upstreamType: _type, ...details } = error.details;
  return error.with({
    kind: 'invalid_request',
    retryable: false,
    message:
      `The turn failed after part of its answer had reached the client (${error.code}). It is final: the gateway already ` +
      'retried and recovered what it could, and sending the same request again would run the whole turn again.',
    details: { ...details, finalAfterOutput: true },
  });
}
