import type { FinishReason } from '@turnguard/core';

/**
 * The terminal response → neutral finish reason (R7.2), after vercel/ai
 * `map-openai-responses-finish-reason.ts`. A tool call does not change the
 * response status (still `completed`, wire-formats §3.2), so tool calls are
 * detected from the output items and passed in as `hasToolCall`.
 * `raw` is the incomplete reason when there is one, else the status.
 */
export function mapResponsesFinishReason(input: {
  status: string | undefined;
  incompleteReason: string | undefined;
  hasToolCall: boolean;
}): FinishReason {
  const { status, incompleteReason, hasToolCall } = input;
  if (status === 'failed') return { unified: 'error', raw: status };
  if (status === 'incomplete' || incompleteReason !== undefined) {
    const raw = incompleteReason ?? status;
    if (incompleteReason === 'max_output_tokens') return { unified: 'length', raw };
    if (incompleteReason === 'content_filter') return { unified: 'content-filter', raw };
    return { unified: hasToolCall ? 'tool-calls' : 'other', raw };
  }
  if (status === 'completed') return { unified: hasToolCall ? 'tool-calls' : 'stop', raw: status };
  // `cancelled` and unknown statuses (e.g. a `response.done` without status).
  return { unified: hasToolCall ? 'tool-calls' : 'other', raw: status };
}
