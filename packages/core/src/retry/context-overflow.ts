import { TurnError } from '../errors/turn-error.js';

/** The numbers of an Anthropic "A + B > C" context overflow (R1.8). */
export interface ContextOverflow {
  inputTokens: number;
  maxTokens: number;
  contextLimit: number;
  /** Extended-thinking budget of the request, when it had one: the resize never goes at or below it. */
  thinkingBudget?: number;
}

/** R1.8 floor and safety margin: the next try gets `max(3000, available, thinking + 1)`, with a 1000-token buffer. */
export const MIN_RESIZED_MAX_OUTPUT_TOKENS = 3000;
export const CONTEXT_OVERFLOW_SAFETY_TOKENS = 1000;

// Anthropic's 400 text, e.g. "input length and `max_tokens` exceed context
// limit: 188059 + 20000 > 200000, decrease input length or `max_tokens` and
// try again" (R1.8). Backticks and spacing are matched loosely.
const CONTEXT_OVERFLOW_TEXT =
  /input length and `?max_tokens`? exceed context limit:\s*(\d+)\s*\+\s*(\d+)\s*>\s*(\d+)/i;

/** The overflow numbers in an upstream error message, or `undefined` if it is not one. */
export function parseContextOverflowMessage(message: string | undefined): ContextOverflow | undefined {
  if (typeof message !== 'string') return undefined;
  const match = CONTEXT_OVERFLOW_TEXT.exec(message);
  if (match === null) return undefined;
  const [, input, max, limit] = match;
  return { inputTokens: Number(input), maxTokens: Number(max), contextLimit: Number(limit) };
}

/** `max(3000, C - A - 1000, thinkingBudget + 1)` (R1.8). */
export function computeResizedMaxOutputTokens(overflow: ContextOverflow): number {
  const available = overflow.contextLimit - overflow.inputTokens - CONTEXT_OVERFLOW_SAFETY_TOKENS;
  const thinkingFloor = overflow.thinkingBudget === undefined ? 0 : overflow.thinkingBudget + 1;
  return Math.max(MIN_RESIZED_MAX_OUTPUT_TOKENS, available, thinkingFloor);
}

/** The overflow a TurnError carries in `details.contextOverflow`, validated. */
export function readContextOverflow(error: TurnError): ContextOverflow | undefined {
  const value = error.details['contextOverflow'];
  if (typeof value !== 'object' || value === null) return undefined;
  const { inputTokens, maxTokens, contextLimit, thinkingBudget } = value as Record<string, unknown>;
  if (!isCount(inputTokens) || !isCount(maxTokens) || !isCount(contextLimit)) return undefined;
  return isCount(thinkingBudget)
    ? { inputTokens, maxTokens, contextLimit, thinkingBudget }
    : { inputTokens, maxTokens, contextLimit };
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}
