import type { ProtocolAdapter, UpstreamTarget } from '../adapter/protocol-adapter.js';
import { attachPairingDiagnostic, readPairingTokens } from '../errors/attach-pairing-diagnostic.js';
import { collectCredentialValues, redactCredentialText } from '../retry/redact-credentials.js';
import type { TurnError } from '../errors/turn-error.js';
import type { ByteStream } from '../stream/byte-stream.js';
import { ABORTED, raceAbort, type Aborted } from './race-abort.js';
import type { Turn } from './turn.js';

/** Response headers as runTurn reads them: a WHATWG `Headers` satisfies this. */
export interface FetchResponseHeaders {
  get(name: string): string | null;
}

/**
 * The part of a fetch `Response` runTurn uses. A WHATWG `Response` satisfies
 * it, so `globalThis.fetch` and msw work unchanged; a transport of its own
 * (the gateway's `node:http` one) can skip building a WHATWG Response and
 * `Headers` per request, which measured ≈ 35 µs on the gateway's
 * time-to-first-byte path (decision 0320).
 */
export interface FetchResponse {
  readonly ok: boolean;
  readonly status: number;
  readonly headers: FetchResponseHeaders;
  /** A WHATWG ReadableStream (fetch) or a transport's own lighter body (decision 0320). */
  readonly body: ByteStream | null;
  text(): Promise<string>;
}

export type FetchFunction = (input: string, init: RequestInit) => Promise<FetchResponse>;

/**
 * R4.6: the session headers of the target are sent unchanged; each physical
 * request gets its own request id under `requestIdHeader` (any existing
 * spelling of that header is replaced).
 */
export function withRequestIdHeader(
  headers: Record<string, string>,
  requestIdHeader: string,
  requestId: string,
): Record<string, string> {
  const lower = requestIdHeader.toLowerCase();
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (name.toLowerCase() !== lower) result[name] = value;
  result[requestIdHeader] = requestId;
  return result;
}

/** Where a chain's request goes and what stops it (R11.1, R11.4); the host's own adapter, target and the turn's stop otherwise. */
export interface RequestRoute {
  adapter: ProtocolAdapter<object>;
  target: UpstreamTarget;
  signal: AbortSignal;
}

/** What came back for one physical request before its stream is read: the body to read, or why there is none. */
export type RequestHead =
  | { stage: 'responded'; body: ByteStream; status: number }
  | { stage: 'aborted-before-response' }
  | { stage: 'connect-failed'; thrown: unknown }
  | { stage: 'http-error'; error: TurnError };

/**
 * Sends one physical request and reads the response head (R4.6: a fresh
 * request id each time); an error response's body is read and classified
 * (R2). Every await races the turn's stop (R1.6). Returns only the body of
 * a successful response: the built request — its serialized body is the
 * whole prompt — and the streaming copy of the native request end with this
 * call, and are not held while the stream is read (R8: per-stream memory).
 */
export async function sendRequest<Native extends object>(turn: Turn<Native>, native: Native, requestId: string, route?: RequestRoute): Promise<RequestHead> {
  const { fetch, requestIdHeader } = turn.options;
  const adapter: ProtocolAdapter<object> = route?.adapter ?? turn.options.adapter;
  const target = route?.target ?? turn.target;
  const signal = route?.signal ?? turn.signal;
  const streaming = adapter.withStreaming(native);
  // The host's own bytes when this is its request unchanged (R8.2); fetch takes any byte view, whatever its buffer's type.
  const http = adapter.buildHttpRequest(streaming, target, turn.takeRequestBytes(streaming));
  const headers = withRequestIdHeader(http.headers, requestIdHeader, requestId);
  let response: FetchResponse;
  try {
    const raced = await raceAbort(fetch(http.url, { method: 'POST', headers, body: http.body as BodyInit, signal }), signal);
    if (raced === ABORTED) return { stage: 'aborted-before-response' };
    response = raced;
  } catch (thrown) {
    if (signal.aborted) return { stage: 'aborted-before-response' };
    return { stage: 'connect-failed', thrown };
  }
  if (response.ok) return { stage: 'responded', body: response.body ?? emptyBody(), status: response.status };
  const error = await readHttpError(turn, { adapter, target, signal }, streaming, response, http.headers);
  return error === ABORTED ? { stage: 'aborted-before-response' } : { stage: 'http-error', error };
}

const emptyBody = (): ByteStream => new ReadableStream<Uint8Array>({ start: (controller) => controller.close() });

/** An error response's body, classified (R2): its text is read (raced like every await on the wire) and never keeps the key. */
async function readHttpError<Native extends object>(
  turn: Turn<Native>,
  route: RequestRoute,
  native: object,
  response: FetchResponse,
  requestHeaders: Record<string, string>,
): Promise<TurnError | Aborted> {
  const { adapter } = route;
  let bodyText = '';
  try {
    const raced = await raceAbort(response.text(), route.signal);
    if (raced === ABORTED) return ABORTED;
    bodyText = raced;
  } catch {
    // The status alone still classifies the failure.
  }
  // R2.3: a pairing 400 carries the role:type:id shape around the offending id (the prompt is parsed back only then).
  const error = attachPairingDiagnostic(adapter.classifyError(response.status, response.headers, bodyText), () =>
    adapter.parseRequest(native).prompt.messages,
  );
  // R4.10: the upstream may echo the caller's key in its error text; the TurnError never keeps it.
  error.message = redactCredentialText(error.message, collectCredentialValues({ apiKey: route.target.apiKey, headers: requestHeaders }));
  const pairing = readPairingTokens(error);
  if (pairing !== undefined) turn.addWarning(`tool pairing rejected (HTTP 400); messages around it: ${pairing.join(' ') || '(id not in the request)'}`);
  return error;
}
