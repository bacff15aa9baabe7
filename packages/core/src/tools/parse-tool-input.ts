import { recoverTruncatedJson } from './recover-truncated-json.js';

/** R3.13: the exact hint the model gets when its arguments were cut by the output limit. */
export const OUTPUT_TRUNCATED_HINT = '(output truncated, please reduce your output)';

/** R3.14: appended to the result of a tool that ran on recovered (auto-closed) arguments. */
export const TRUNCATED_ARGUMENTS_WARNING =
  '[Warning: the tool arguments were cut off and were completed automatically by closing unfinished ' +
  `strings and objects, so their end may be missing. ${OUTPUT_TRUNCATED_HINT}]`;

export type ParsedToolInput =
  | { ok: true; value: unknown; recovered: boolean }
  | { ok: false; message: string };

export interface ParseToolInputOptions {
  /** The response stopped for the output-token limit (finish reason `length`). */
  responseTruncated: boolean;
}

/**
 * Parses a tool call's raw argument text (R3.13, R3.14).
 *
 * - Empty or whitespace-only text means "no arguments": `{}`. Anthropic
 *   streams a no-argument tool as `input_json_delta` with `partial_json: ""`
 *   (fixtures/messages/anthropic-tool-no-args). If the response was
 *   truncated, the call may have been cut before its first byte, so it is
 *   marked `recovered` and the result will carry the truncation warning.
 * - Valid JSON is used as is.
 * - Otherwise `recoverTruncatedJson` is tried whether or not the response
 *   was flagged as truncated: a stream cut mid-call cuts the same way.
 * - Anything else is a tool error whose message (for the model, never for
 *   telemetry) says why, with `OUTPUT_TRUNCATED_HINT` when truncated.
 */
export function parseToolInput(inputText: string, options: ParseToolInputOptions): ParsedToolInput {
  if (inputText.trim() === '') return { ok: true, value: {}, recovered: options.responseTruncated };

  const recovery = recoverTruncatedJson(inputText);
  if (recovery.ok) return { ok: true, value: recovery.value, recovered: recovery.recovered };

  const reason = describeParseFailure(inputText);
  const hint = options.responseTruncated ? ` ${OUTPUT_TRUNCATED_HINT}` : '';
  return { ok: false, message: `Error: Invalid tool arguments: the arguments are not valid JSON (${reason}).${hint}` };
}

function describeParseFailure(inputText: string): string {
  try {
    JSON.parse(inputText);
    return 'unknown parse error';
  } catch (error) {
    return error instanceof Error ? error.message : 'unknown parse error';
  }
}
