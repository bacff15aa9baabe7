import type { FetchFunction, FetchResponse, Protocol } from '@turnguard/core';
import { readResponseHeaderRecord } from './forwarded-headers.js';

/** One upstream HTTP response as the client would have seen it directly. */
export interface UpstreamResponseSeen {
  status: number;
  headers: Record<string, string>;
  /** Error responses only: the body runTurn's classifyError read, to relay as it came (R8.6). */
  errorBody: string | undefined;
  /** Error responses only: the protocol family of the endpoint that answered (a fallback may speak another, R11.1). */
  protocol: Protocol | undefined;
}

/**
 * Remembers what the upstream answered to the turn's physical requests, so
 * the gateway can relay the upstream's own headers (request ids, rate
 * limits) and an unrecovered error's own status and body instead of
 * rewriting them (R8.6, decision 0230).
 */
export class UpstreamResponses {
  /** The first successful response: its headers are the ones an SSE client gets (sent before any recovery). */
  firstOk: UpstreamResponseSeen | undefined;
  /** The latest successful response: a JSON answer carries its headers (segment 2's after a recovery). */
  lastOk: UpstreamResponseSeen | undefined;
  /** The latest error response, whose body was read. */
  lastError: UpstreamResponseSeen | undefined;
  /** The latest response of any kind. */
  last: UpstreamResponseSeen | undefined;
  /** Called once, when the first successful response arrives (a streaming relay sends its headers then). */
  onFirstOk: ((seen: UpstreamResponseSeen) => void) | undefined;
  /** The latest physical request's response head came back (until it does, or when it never did: false). */
  latestGotHead = false;

  /** `fetch` with every response recorded here; bodies are untouched, an error body is copied as classifyError reads it. */
  wrap(fetch: FetchFunction): FetchFunction {
    return async (input, init) => {
      this.latestGotHead = false;
      const response = await fetch(input, init);
      this.latestGotHead = true;
      const seen: UpstreamResponseSeen = { status: response.status, headers: readResponseHeaderRecord(response.headers), errorBody: undefined, protocol: undefined };
      this.last = seen;
      if (response.ok) {
        this.lastOk = seen;
        if (this.firstOk === undefined) {
          this.firstOk = seen;
          // Dropped once called: it is called once, and the stream would hold it to its end.
          const onFirstOk = this.onFirstOk;
          this.onFirstOk = undefined;
          onFirstOk?.(seen);
        }
        return response;
      }
      seen.protocol = protocolOfEndpoint(input);
      this.lastError = seen;
      return withRecordedText(response, seen);
    };
  }
}

function withRecordedText(response: FetchResponse, seen: UpstreamResponseSeen): FetchResponse {
  return {
    ok: response.ok,
    status: response.status,
    headers: response.headers,
    body: response.body,
    text: async () => {
      const text = await response.text();
      seen.errorBody = text;
      return text;
    },
  };
}

/** The family of the endpoint an error came from (`…/chat/completions?x` → chat): the adapters post to their protocol's own path. */
function protocolOfEndpoint(url: string): Protocol | undefined {
  const queryAt = url.indexOf('?');
  const path = queryAt === -1 ? url : url.slice(0, queryAt);
  if (path.endsWith('/chat/completions')) return 'chat';
  if (path.endsWith('/messages')) return 'messages';
  return path.endsWith('/responses') ? 'responses' : undefined;
}
