import { readHeader, type HeadersLike } from './read-header.js';

/**
 * Anthropic windows (docs "Rate limits" → response headers): each has
 * `anthropic-ratelimit-<window>-remaining` and `-reset` as an RFC 3339 instant.
 */
const ANTHROPIC_WINDOWS = ['requests', 'tokens', 'input-tokens', 'output-tokens'] as const;
/** OpenAI windows (docs "Rate limits in headers"): `x-ratelimit-reset-<window>` is a Go duration ("6m0s", "20ms"). */
const OPENAI_WINDOWS = ['requests', 'tokens'] as const;

const GO_DURATION_PART = /(\d+(?:\.\d+)?)(h|ms|m|s|us|µs|ns)/gy;
const UNIT_MS: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1, us: 0.001, µs: 0.001, ns: 0.000001 };

/**
 * When an exhausted rate-limit window reopens, as epoch ms, for R1.11's
 * "sleep to the reset" — or `undefined` when the headers do not say.
 *
 * `anthropic-ratelimit-unified-reset` (epoch seconds) wins: it is the one
 * an unattended client can sleep to (R1.11: sleep to the reset), and it
 * covers the subscription windows. Otherwise a window counts when its
 * `remaining` is 0 or absent; the latest reset among those is the one that
 * lets a request through.
 */
export function parseRateLimitResetAt(headers: HeadersLike | undefined, nowMs: number = Date.now()): number | undefined {
  const unified = parseAbsoluteInstant(readHeader(headers, 'anthropic-ratelimit-unified-reset'));
  if (unified !== undefined) return unified;

  const candidates: number[] = [];
  for (const window of ANTHROPIC_WINDOWS) {
    if (!isExhausted(readHeader(headers, `anthropic-ratelimit-${window}-remaining`))) continue;
    const reset = parseAbsoluteInstant(readHeader(headers, `anthropic-ratelimit-${window}-reset`));
    if (reset !== undefined) candidates.push(reset);
  }
  for (const window of OPENAI_WINDOWS) {
    if (!isExhausted(readHeader(headers, `x-ratelimit-remaining-${window}`))) continue;
    const duration = parseGoDurationMs(readHeader(headers, `x-ratelimit-reset-${window}`));
    if (duration !== undefined) candidates.push(nowMs + duration);
  }
  return candidates.length === 0 ? undefined : Math.max(...candidates);
}

function isExhausted(remaining: string | undefined): boolean {
  if (remaining === undefined) return true;
  const count = Number(remaining.trim());
  return Number.isFinite(count) && count <= 0;
}

/** Epoch seconds (all digits) or an RFC 3339 / HTTP date. */
function parseAbsoluteInstant(value: string | undefined): number | undefined {
  const text = value?.trim();
  if (text === undefined || text === '') return undefined;
  if (/^\d+(?:\.\d+)?$/.test(text)) return Number(text) * 1000;
  const instant = Date.parse(text);
  return Number.isNaN(instant) ? undefined : instant;
}

/** Go's `time.Duration.String()` form: "1h2m3.5s", "6m0s", "20ms". */
export function parseGoDurationMs(value: string | undefined): number | undefined {
  const text = value?.trim();
  if (text === undefined || text === '') return undefined;
  GO_DURATION_PART.lastIndex = 0;
  let total = 0;
  let consumed = 0;
  for (let match = GO_DURATION_PART.exec(text); match !== null; match = GO_DURATION_PART.exec(text)) {
    const [part, amount, unit] = match;
    total += Number(amount) * (UNIT_MS[unit ?? ''] ?? Number.NaN);
    consumed += part.length;
  }
  return consumed === text.length && Number.isFinite(total) ? total : undefined;
}
