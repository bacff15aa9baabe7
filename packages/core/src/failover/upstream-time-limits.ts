import { TurnError } from '../errors/turn-error.js';
import { rejectOption as rejectInvalidOption } from '../internal/reject-option.js';

/**
 * R11.4: the time limits of one physical request, each with its own error
 * code. The defaults are chosen so that a genuine long-thinking stream
 * survives them (decision 0400): Anthropic sends `ping` events while a model
 * thinks, OpenAI and Azure send `keepalive` events on a Responses stream, and
 * every limit here counts those as signs of life; SSE comment lines
 * (`: keep-alive`, `: OPENROUTER PROCESSING`) do not, since a queue sends
 * them while no model works on the request.
 */
export const UPSTREAM_TIME_LIMIT_DEFAULTS = {
  /** TCP (and TLS) connect (undici's own default is 10 s). */
  connectMs: 10_000,
  /** From the request written to the response headers; streamed upstream requests get headers before any thinking. */
  responseHeadersMs: 60_000,
  /** From the response headers to the first data record of the body (a ping or keep-alive event counts; a comment does not). */
  firstTokenMs: 120_000,
  /** The longest gap between data records before visible output (hidden reasoning may be silent on some servers). */
  stallBeforeOutputMs: 120_000,
  /** The longest gap between data records once visible text streams. */
  stallAfterOutputMs: 60_000,
} as const;

export type UpstreamTimeLimitName = keyof typeof UPSTREAM_TIME_LIMIT_DEFAULTS;

/** The error code each limit ends an attempt with (R11.4). */
export const UPSTREAM_TIME_LIMIT_CODES: Readonly<Record<UpstreamTimeLimitName, string>> = {
  connectMs: 'UPSTREAM_CONNECT_TIMEOUT',
  responseHeadersMs: 'UPSTREAM_HEADERS_TIMEOUT',
  firstTokenMs: 'FIRST_TOKEN_TIMEOUT',
  stallBeforeOutputMs: 'STREAM_STALL',
  stallAfterOutputMs: 'STREAM_STALL',
};

/** `false` turns one limit off; a number is milliseconds (at least 1). */
export type UpstreamTimeLimitOptions = { [K in UpstreamTimeLimitName]?: number | false };

/** The validated limits; `undefined` means that limit is off. */
export type UpstreamTimeLimits = { readonly [K in UpstreamTimeLimitName]: number | undefined };

const LIMIT_NAMES = Object.keys(UPSTREAM_TIME_LIMIT_DEFAULTS) as UpstreamTimeLimitName[];
const KNOWN = new Set<string>(LIMIT_NAMES);
/** One day: anything longer is a typo (seconds given as milliseconds the other way round). */
const MAX_LIMIT_MS = 86_400_000;

function rejectOption(message: string, option: string): never {
  return rejectInvalidOption('INVALID_UPSTREAM_TIME_LIMIT', message, option);
}

/**
 * Validates time-limit options (R11.4). Unlike R4.7's limits these may be
 * raised as well as lowered: a slow self-hosted server may need longer than a
 * provider's API. Unknown keys and bad values throw a `TurnError` naming the
 * key and the valid ones.
 */
export function resolveUpstreamTimeLimits(options: UpstreamTimeLimitOptions | undefined): UpstreamTimeLimits {
  if (options === undefined) return { ...UPSTREAM_TIME_LIMIT_DEFAULTS };
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    rejectOption('timeLimits must be an object.', 'timeLimits');
  }
  for (const key of Object.keys(options)) {
    if (!KNOWN.has(key)) rejectOption(`timeLimits.${key} is not a known limit; valid: ${LIMIT_NAMES.join(', ')}.`, key);
  }
  const resolved = {} as { [K in UpstreamTimeLimitName]: number | undefined };
  for (const name of LIMIT_NAMES) {
    const given = options[name];
    if (given === undefined) resolved[name] = UPSTREAM_TIME_LIMIT_DEFAULTS[name];
    else if (given === false) resolved[name] = undefined;
    else if (typeof given === 'number' && Number.isInteger(given) && given >= 1 && given <= MAX_LIMIT_MS) resolved[name] = given;
    else rejectOption(`timeLimits.${name} must be false or whole milliseconds from 1 to ${MAX_LIMIT_MS}, got ${JSON.stringify(given)}.`, name);
  }
  return resolved;
}

/** Where one physical request is, for picking the limit that watches it. */
export type AttemptPhase = 'connecting' | 'awaiting-headers' | 'awaiting-first-record' | 'streaming';

/** The limit that applies in a phase; `undefined` when it is turned off. */
export function pickUpstreamTimeLimit(
  limits: UpstreamTimeLimits,
  phase: AttemptPhase,
  visibleOutputStarted: boolean,
): { name: UpstreamTimeLimitName; ms: number } | undefined {
  const name: UpstreamTimeLimitName =
    phase === 'connecting'
      ? 'connectMs'
      : phase === 'awaiting-headers'
        ? 'responseHeadersMs'
        : phase === 'awaiting-first-record'
          ? 'firstTokenMs'
          : visibleOutputStarted
            ? 'stallAfterOutputMs'
            : 'stallBeforeOutputMs';
  const ms = limits[name];
  return ms === undefined ? undefined : { name, ms };
}

const DESCRIPTIONS: Readonly<Record<UpstreamTimeLimitName, string>> = {
  connectMs: 'connect',
  responseHeadersMs: 'response-header',
  firstTokenMs: 'first-token',
  stallBeforeOutputMs: 'stall (before output)',
  stallAfterOutputMs: 'stall (after output)',
};

/**
 * The error an attempt ends with when a limit fires (R11.4): kind `timeout`,
 * the limit's own code, and the real seconds in the message. Nothing reached
 * the host before a connect, header or first-token time-out, so those are
 * retryable; a stall is retryable only while no output was delivered.
 */
export function createUpstreamTimeLimitError(
  name: UpstreamTimeLimitName,
  limitMs: number,
  facts: { outputDelivered: boolean; upstream?: string; model?: string },
): TurnError {
  const seconds = Math.round(limitMs) / 1000;
  const stall = name === 'stallBeforeOutputMs' || name === 'stallAfterOutputMs';
  return new TurnError({
    kind: 'timeout',
    code: UPSTREAM_TIME_LIMIT_CODES[name],
    retryable: stall ? !facts.outputDelivered : true,
    message: `The upstream missed its ${seconds} s ${DESCRIPTIONS[name]} time limit.`,
    details: {
      timeLimit: name,
      limitSeconds: seconds,
      ...(facts.upstream === undefined ? {} : { upstream: facts.upstream }),
      ...(facts.model === undefined ? {} : { model: facts.model }),
    },
  });
}
