import type { ProtocolAdapter, UpstreamTarget } from '../adapter/protocol-adapter.js';
import { attachPairingDiagnostic, readPairingTokens } from '../errors/attach-pairing-diagnostic.js';
import { collectCredentialValues, redactCredentialText } from '../retry/redact-credentials.js';
import type { TurnError } from '../errors/turn-error.js';
import type { ByteStream } from '../stream/byte-stream.js';
import { ABORTED, AbortRace, type Aborted, type StopSource } from './race-abort.js';
import { readSegment, type ReadSegmentOptions, type SegmentEndListener, type SegmentFacts } from './read-segment.js';
import { ignore } from '../internal/ignore.js';
import type { SseRecordObserver } from '../stream/decode-sse-stream.js';
import type { DecodedStreamEvent } from '../types/turn-event.js';
import type { ResponseBodyInfo } from './run-turn.js';

/** Response headers as runTurn reads them: a WHATWG `Headers` satisfies this. */
export interface FetchResponseHeaders {
  get(name: string): string | null;
}

/**
 * The part of a fetch `Response` runTurn uses. A WHATWG `Response` satisfies
 * it, so `globalThis.fetch` and msw work unchanged; a transport of its own
 * (the gateway's `node:http` one) can skip building a WHATWG Response and
 * `Headers` per request, which measured ≈ 35 µs on the gateway's
 * time-to-first-byte path (bench/README.md, gateway section).
 */
export interface FetchResponse {
  readonly ok: boolean;
  readonly status: number;
  readonly headers: FetchResponseHeaders;
  /** A WHATWG ReadableStream (fetch) or a transport's own lighter body (decision 0205). */
  readonly body: ByteStream | null;
  text(): Promise<string>;
}

export type FetchFunction = (input: string, init: RequestInit) => Promise<FetchResponse>;

export interface SendSegmentRequestOptions<Native extends object> {
  adapter: ProtocolAdapter<Native>;
  native: Native;
  target: UpstreamTarget;
  fetch: FetchFunction;
  requestId: string;
  requestIdHeader: string;
  /** The turn's stop: its signal goes to the fetch, and every await on the wire races it. */
  stop: StopSource;
  now(): number;
  channel: ReadSegmentOptions['channel'];
  notices: ReadSegmentOptions['notices'];
  forwardToolCalls: boolean;
  blockIdPrefix: string;
  keepReasoning: boolean;
  reasoningMaxChars: number;
  segmentIndex: 0 | 1;
  observeSseRecords: ((body: ResponseBodyInfo) => SseRecordObserver<DecodedStreamEvent> | undefined) | undefined;
}

/** How one physical request went, before any decision about it. */
export type SegmentAttempt =
  | { stage: 'aborted-before-response'; startedAt: number; endedAt: number }
  | { stage: 'connect-failed'; startedAt: number; endedAt: number; thrown: unknown }
  | { stage: 'http-error'; startedAt: number; endedAt: number; error: TurnError }
  /**
   * The response came, but its stream could not be read: the adapter's
   * decoder or runTurn's reader threw (a bug, not the wire). Still a
   * physical request, so it is recorded (R6.1).
   */
  | { stage: 'read-failed'; startedAt: number; endedAt: number; thrown: unknown }
  | { stage: 'streamed'; startedAt: number; endedAt: number; facts: SegmentFacts };

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

/**
 * Sends one physical request, reads its stream and settles with what
 * `settle` makes of the attempt (a throw from it rejects). I/O lives here
 * only. One promise from the request to its judged attempt: an async
 * function awaiting the read, the read's own promise and a `then` for the
 * judgement were each a promise, a reaction and closures — the function also a
 * suspended frame and its registers — held for the whole stream of every
 * open turn (issue 19, per-stream memory, decision 0297).
 */
export function sendSegmentRequest<Native extends object, Result>(
  options: SendSegmentRequestOptions<Native>,
  settle: (attempt: SegmentAttempt) => Result,
): Promise<Result> {
  return new Promise<Result>((resolve, reject) => {
    new SegmentRequest(options.now, new AbortRace(options.stop), settle, resolve, reject).send(options);
  });
}

/**
 * What the attempt's end is chained on to run a microtask later. Not
 * `queueMicrotask`: Node wraps each call in an AsyncResource and a bound
 * function (bench/gateway/turn-overhead.mjs: +4–6 µs per turn).
 */
const SETTLED = Promise.resolve();
const emptyBody = (): ByteStream => new ReadableStream<Uint8Array>({ start: (controller) => controller.close() });

/**
 * One physical request while it runs. The options (the streaming request
 * among them) are not kept: once the head is in, only what the stream needs
 * stays (decision 0292).
 */
class SegmentRequest<Result> implements SegmentEndListener {
  private readonly startedAt: number;
  /** The response body once the head is in: cancelled when the segment was aborted. */
  private body: ByteStream | undefined;

  constructor(
    private readonly now: () => number,
    private readonly race: AbortRace,
    private readonly settle: (attempt: SegmentAttempt) => Result,
    private readonly resolve: (result: Result) => void,
    private readonly reject: (error: unknown) => void,
  ) {
    this.startedAt = now();
  }

  send<Native extends object>(options: SendSegmentRequestOptions<Native>): void {
    requestHead(options, this.race, this.startedAt).then(
      (head) => this.read(head, options),
      // No response to record: the request could not be built or sent (an adapter bug).
      (error: unknown) => {
        this.race.release();
        this.reject(error);
      },
    );
  }

  private read<Native extends object>(head: RespondedHead | SegmentAttempt, options: SendSegmentRequestOptions<Native>): void {
    if (head.stage !== 'responded') return this.finish(head);
    const body = head.response.body ?? emptyBody();
    this.body = body;
    try {
      const records = options.observeSseRecords?.({ segmentIndex: options.segmentIndex, requestId: options.requestId });
      readSegment(
        {
          events: options.adapter.decodeStream(body, { records }),
          race: this.race,
          channel: options.channel,
          notices: options.notices,
          now: this.now,
          forwardToolCalls: options.forwardToolCalls,
          blockIdPrefix: options.blockIdPrefix,
          keepReasoning: options.keepReasoning,
          reasoningMaxChars: options.reasoningMaxChars,
        },
        this,
      );
    } catch (error) {
      // Nothing reads the body: release the socket.
      body.cancel().catch(ignore);
      this.onSegmentFailed(error);
    }
  }

  onSegmentEnd(facts: SegmentFacts): void {
    // Release the socket: a decoder that ignores the signal would keep reading.
    if (facts.end === 'aborted') this.body?.cancel().catch(ignore);
    this.finishLater({ stage: 'streamed', startedAt: this.startedAt, endedAt: this.now(), facts });
  }

  /** The decoder or the reader threw after the response came: a failed attempt, recorded like any (R6.1). */
  onSegmentFailed(error: unknown): void {
    this.finishLater({ stage: 'read-failed', startedAt: this.startedAt, endedAt: this.now(), thrown: error });
  }

  /**
   * The reader ends a segment inside the host's pull or the stop's own
   * listener: the attempt is judged a microtask later, off those stacks, as
   * it was behind an await.
   */
  private finishLater(attempt: SegmentAttempt): void {
    void SETTLED.then(() => this.finish(attempt));
  }

  private finish(attempt: SegmentAttempt): void {
    this.race.release();
    let result: Result;
    try {
      result = this.settle(attempt);
    } catch (error) {
      this.reject(error);
      return;
    }
    this.resolve(result);
  }
}

/** A successful response head: its body is the stream to read. */
interface RespondedHead {
  stage: 'responded';
  response: FetchResponse;
}

/**
 * Sends the request and reads the response head; a failed attempt when there
 * is no stream to read. Its own frame, over once the head is in: the built
 * request, its serialized body (the whole prompt) included, is not held for
 * the stream (issue 19: a 100 KB prompt was kept once more per open stream).
 */
async function requestHead<Native extends object>(
  options: SendSegmentRequestOptions<Native>,
  race: AbortRace,
  startedAt: number,
): Promise<RespondedHead | SegmentAttempt> {
  const { adapter, now } = options;
  const { signal } = race;
  const http = adapter.buildHttpRequest(options.native, options.target);
  const headers = withRequestIdHeader(http.headers, options.requestIdHeader, options.requestId);
  let response: FetchResponse;
  try {
    const raced = await race.race(options.fetch(http.url, { method: 'POST', headers, body: http.body, signal }));
    if (raced === ABORTED) return { stage: 'aborted-before-response', startedAt, endedAt: now() };
    response = raced;
  } catch (thrown) {
    if (signal.aborted) return { stage: 'aborted-before-response', startedAt, endedAt: now() };
    return { stage: 'connect-failed', startedAt, endedAt: now(), thrown };
  }
  if (response.ok) return { stage: 'responded', response };
  const error = await readHttpError(options, race, response, http.headers);
  if (error === ABORTED) return { stage: 'aborted-before-response', startedAt, endedAt: now() };
  return { stage: 'http-error', startedAt, endedAt: now(), error };
}

/** An error response's body, classified (R2): its text is read (raced like every await on the wire) and never keeps the key. */
async function readHttpError<Native extends object>(
  options: SendSegmentRequestOptions<Native>,
  race: AbortRace,
  response: FetchResponse,
  requestHeaders: Record<string, string>,
): Promise<TurnError | Aborted> {
  const { adapter } = options;
  let bodyText = '';
  try {
    const raced = await race.race(response.text());
    if (raced === ABORTED) return ABORTED;
    bodyText = raced;
  } catch {
    // The status alone still classifies the failure.
  }
  // R2.3: a pairing 400 carries the role:type:id shape around the offending id (the prompt is parsed back only then).
  const error = attachPairingDiagnostic(adapter.classifyError(response.status, response.headers, bodyText), () =>
    adapter.parseRequest(options.native).prompt.messages,
  );
  // Issue 15: the upstream may echo the caller's key in its error text; the TurnError never keeps it.
  error.message = redactCredentialText(error.message, collectCredentialValues({ apiKey: options.target.apiKey, headers: requestHeaders }));
  const pairing = readPairingTokens(error);
  if (pairing !== undefined) options.notices.addWarning(`tool pairing rejected (HTTP 400); messages around it: ${pairing.join(' ') || '(id not in the request)'}`);
  return error;
}
