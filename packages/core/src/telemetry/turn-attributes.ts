import type { Protocol } from '../adapter/protocol-adapter.js';
import type { Usage } from '../types/usage.js';
import { isKnownCount } from '../usage/index.js';
import type { SegmentRecord, TurnResult } from '../turn/turn-result.js';
import type { OtelAttributes } from './otel-api.js';

/** A turn that has ended, as its telemetry reads it: names, numbers, codes and ids, never content (R4.10, R12.1). */
export interface FinishedTurn {
  protocol: Protocol;
  /** The model the request named (the host's text: checked before it is used). */
  requestModel: string;
  /** The upstream's host and port, read from its base URL (never the URL: a query may hold a key). */
  server: ServerAddress | undefined;
  /** In a fail-over chain (R11): each named upstream's host and port, for the requests that went there. */
  servers?: ReadonlyMap<string, ServerAddress | undefined>;
  /** Epoch ms, as runTurn's clock read it when the turn began. */
  startedAt: number;
  result: TurnResult;
}

/** Which GenAI conventions are emitted: v1.41's, or the newest on `gen_ai_latest_experimental`. */
export type GenAiConventions = 'v1.41' | 'latest';

export function pickConventions(optIn: string | undefined): GenAiConventions {
  const values = (optIn ?? '').split(',').map((value) => value.trim());
  return values.includes('gen_ai_latest_experimental') ? 'latest' : 'v1.41';
}

/** Identifier-shaped names only: a model field holding free text (a pasted prompt) is never recorded (R4.10). */
const NAME_SHAPE = /^[A-Za-z0-9][\w.:/@+-]{0,99}$/;
const OTHER = '_OTHER';

export function safeName(value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined;
  return NAME_SHAPE.test(value) ? value : OTHER;
}

/** `gen_ai.provider.name` by the protocol's family; `server.address` says which host it really was. */
const PROVIDER: Record<Protocol, string> = { chat: 'openai', responses: 'openai', messages: 'anthropic' };

export function providerOf(protocol: Protocol): string {
  return PROVIDER[protocol];
}

/** All three protocols are chat-style inference calls (the conventions' `chat` operation). */
export const OPERATION_NAME = 'chat';

export interface ServerAddress {
  address: string;
  port: number;
}

export function readServer(baseUrl: string): ServerAddress | undefined {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return undefined;
  }
  const port = url.port === '' ? (url.protocol === 'http:' ? 80 : 443) : Number(url.port);
  // An IPv6 literal's brackets are the URL's, not the address's.
  return { address: url.hostname.replace(/^\[(.*)\]$/, '$1'), port };
}

/**
 * The physical requests of the model that answered (R11.7: `result.model`,
 * or the last one asked when none did): after a fallback, the failed
 * attempts of the models before it are not the answer.
 */
export function answeringSegments(result: TurnResult): SegmentRecord[] {
  if (result.chain === undefined || result.model === undefined) return result.segments;
  return result.segments.filter((segment) => segment.model === result.model);
}

/** The model the upstream said answered: the last request of the answering model that named one. */
export function responseModelOf(result: TurnResult): string | undefined {
  let model: string | undefined;
  for (const segment of answeringSegments(result)) if (segment.responseModel !== undefined) model = segment.responseModel;
  return safeName(model);
}

/** Where a physical request went: its chain upstream's host and port, else the turn's target. */
export function serverOf(turn: FinishedTurn, segment: SegmentRecord | undefined): ServerAddress | undefined {
  if (segment?.upstream !== undefined && turn.servers?.has(segment.upstream) === true) return turn.servers.get(segment.upstream);
  return turn.server;
}

/** The protocol family a physical request spoke: a fallback may be of another family (R11.1). */
export function protocolOf(turn: FinishedTurn, segment: SegmentRecord | undefined): Protocol {
  return segment?.protocol ?? turn.protocol;
}

/** The attributes every GenAI span and metric point of the turn carries: the answering request's provider and server. */
export function commonAttributes(turn: FinishedTurn): OtelAttributes {
  const answering = answeringSegments(turn.result).at(-1);
  const server = serverOf(turn, answering);
  return {
    'gen_ai.operation.name': OPERATION_NAME,
    'gen_ai.provider.name': PROVIDER[protocolOf(turn, answering)],
    'gen_ai.request.model': safeName(turn.requestModel === 'unknown' ? undefined : turn.requestModel),
    'gen_ai.response.model': responseModelOf(turn.result),
    'server.address': server?.address,
    'server.port': server?.port,
  };
}

/** Known token counts in the conventions' sense; an unknown count is absent, never 0 (R5.1). */
export interface TokenCounts {
  input?: number;
  output?: number;
  cacheRead?: number;
  cacheWrite?: number;
  reasoning?: number;
}

/**
 * The conventions' input count includes cached input. OpenAI's already does;
 * Anthropic's `input_tokens` leaves out cache reads and writes (which it
 * omits when they do not apply), so they are added to a known input count.
 */
export function tokenCounts(protocol: Protocol, usage: Usage | undefined): TokenCounts {
  if (usage === undefined) return {};
  const known = (count: number | undefined): number | undefined => (isKnownCount(count) ? count : undefined);
  const cacheRead = known(usage.cachedInputTokens);
  const cacheWrite = known(usage.cacheCreationInputTokens);
  let input = known(usage.inputTokens);
  if (input !== undefined && protocol === 'messages') input += (cacheRead ?? 0) + (cacheWrite ?? 0);
  const counts: TokenCounts = {};
  if (input !== undefined) counts.input = input;
  const output = known(usage.outputTokens);
  if (output !== undefined) counts.output = output;
  if (cacheRead !== undefined) counts.cacheRead = cacheRead;
  if (cacheWrite !== undefined) counts.cacheWrite = cacheWrite;
  const reasoning = known(usage.reasoningTokens);
  if (reasoning !== undefined) counts.reasoning = reasoning;
  return counts;
}

export function usageAttributes(counts: TokenCounts, conventions: GenAiConventions): OtelAttributes {
  return {
    'gen_ai.usage.input_tokens': counts.input,
    'gen_ai.usage.output_tokens': counts.output,
    'gen_ai.usage.cache_read.input_tokens': counts.cacheRead,
    [conventions === 'latest' ? 'gen_ai.usage.cache_write.input_tokens' : 'gen_ai.usage.cache_creation.input_tokens']: counts.cacheWrite,
    'gen_ai.usage.reasoning.output_tokens': counts.reasoning,
  };
}

/** The provider's own finish reason when it is a plain word, else the neutral one; `error` for a cut or failure. */
export function finishReasons(result: TurnResult): string[] {
  const reason = result.finishReason;
  if (result.outcome === 'error' || reason === undefined) return ['error'];
  const raw = reason.raw === undefined ? undefined : safeName(reason.raw);
  return [raw === undefined || raw === OTHER ? reason.unified : raw];
}

/** From the turn's start to its first content, in seconds; undefined when nothing came. */
export function timeToFirstChunk(turn: FinishedTurn): number | undefined {
  for (const segment of turn.result.segments) {
    if (segment.ttftMs !== undefined) return (segment.startedAt + segment.ttftMs - turn.startedAt) / 1000;
  }
  return undefined;
}

/** Which upstream and model a request went to: R1 retries go to the same one, a fallback to another (R11). */
export function destinationKey(segment: SegmentRecord): string {
  return `${segment.upstream ?? ''}\u0000${segment.model}`;
}

/** turnguard's own attributes: how the turn was kept alive. */
export function turnguardAttributes(turn: FinishedTurn): OtelAttributes {
  const { result } = turn;
  const firstSegment = result.segments.filter((segment) => segment.segmentIndex === 0);
  // A fallback's first request is a move, not a retry: retries are the requests beyond each destination's first.
  const destinations = new Set(firstSegment.map(destinationKey)).size;
  return {
    'turnguard.protocol': turn.protocol,
    'turnguard.physical_requests': result.segments.length,
    'turnguard.retries': Math.max(0, firstSegment.length - destinations),
    'turnguard.recovery': recoveryOutcome(result),
    'turnguard.recovery.skipped_reason': result.recoverySkipped,
    'turnguard.usage.complete': result.usage.complete,
    ...failoverAttributes(result),
  };
}

/**
 * R11.7 on the turn span: how many times the turn moved, whether its answer
 * was continued, and — once it reached more than one chain entry — each
 * entry's model, upstream and outcome in order, and the reason it was left
 * (its last error code, or why it was skipped). Names and codes only;
 * bounded by the configured chain.
 */
export function failoverAttributes(result: TurnResult): OtelAttributes {
  const { chain } = result;
  if (chain === undefined) return {};
  const reached = chain.length > 1;
  return {
    'turnguard.fallback.count': result.fallbacks ?? 0,
    'turnguard.continued': result.continued === true,
    'turnguard.fallback.models': reached ? chain.map((entry) => safeName(entry.model) ?? OTHER) : undefined,
    'turnguard.fallback.upstreams': reached ? chain.map((entry) => safeName(entry.upstream) ?? OTHER) : undefined,
    'turnguard.fallback.outcomes': reached ? chain.map((entry) => entry.outcome) : undefined,
    'turnguard.fallback.reasons': reached ? chain.filter((entry) => entry.outcome !== 'answered').map((entry) => safeList(entry.errorCode ?? entry.skippedBecause)) : undefined,
  };
}

/** A code, or a comma-separated list of them (`tool:web_search,previous_response_id`), each checked like a name. */
function safeList(value: string | undefined): string {
  if (value === undefined || value === '') return OTHER;
  return value
    .split(',')
    .map((part) => safeName(part) ?? OTHER)
    .join(',');
}

function recoveryOutcome(result: TurnResult): string | undefined {
  if (result.recovery !== undefined) return result.recovery.recovered ? 'recovered' : 'failed';
  return result.recoverySkipped === undefined ? undefined : 'skipped';
}

export function turnSpanAttributes(turn: FinishedTurn, conventions: GenAiConventions): OtelAttributes {
  const { result } = turn;
  let lastResponseId: string | undefined;
  for (const segment of answeringSegments(result)) lastResponseId = segment.responseId ?? lastResponseId;
  const ttfc = timeToFirstChunk(turn);
  return {
    ...commonAttributes(turn),
    'gen_ai.response.id': safeName(lastResponseId),
    'gen_ai.response.finish_reasons': finishReasons(result),
    'gen_ai.response.time_to_first_chunk': ttfc,
    'error.type': safeName(result.error?.code),
    // A sum over physical requests is the turn's spend only when every one of them reported it (R5.2).
    // The turn's usage is the answering model's alone (R11.7), in its protocol's terms.
    ...(result.usage.complete ? usageAttributes(tokenCounts(protocolOf(turn, answeringSegments(result).at(-1)), result.usage), conventions) : {}),
    ...turnguardAttributes(turn),
  };
}

/** What a physical request was: segment 1 (its retries and fallbacks), R4's recovery, or R11.6's continuation. */
function segmentKind(segment: SegmentRecord): string {
  if (segment.segmentIndex === 0) return 'first';
  return segment.continuation === true ? 'continuation' : 'recovery';
}

/**
 * One physical request as an HTTP client span (the recovery request is a new
 * request, not a resend; so is a fallback's, which goes to another model):
 * where it went — server, upstream, family and model — and what came back.
 */
export function requestSpanAttributes(turn: FinishedTurn, segment: SegmentRecord, resendCount: number, conventions: GenAiConventions): OtelAttributes {
  const server = serverOf(turn, segment);
  const protocol = protocolOf(turn, segment);
  return {
    'http.request.method': 'POST',
    'server.address': server?.address,
    'server.port': server?.port,
    'http.response.status_code': segment.status,
    'http.request.resend_count': resendCount > 0 ? resendCount : undefined,
    'error.type': segment.outcome === 'ok' ? undefined : safeName(segment.errorCode ?? String(segment.status ?? '')) ?? OTHER,
    'gen_ai.response.id': safeName(segment.responseId),
    'gen_ai.provider.name': PROVIDER[protocol],
    'gen_ai.request.model': safeName(segment.model === 'unknown' ? undefined : segment.model),
    'gen_ai.response.model': safeName(segment.responseModel),
    ...usageAttributes(tokenCounts(protocol, segment.usage), conventions),
    'turnguard.request_id': safeName(segment.requestId),
    'turnguard.segment': segmentKind(segment),
    'turnguard.outcome': segment.outcome,
    'turnguard.upstream': safeName(segment.upstream),
    'turnguard.fallback.from': safeName(segment.fallbackFrom),
  };
}
