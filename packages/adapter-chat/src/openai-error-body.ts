import type { ErrorKind, TurnError } from '@turnguard/core';

/**
 * A TurnError as OpenAI's error object `{ message, type, param, code }`
 * (openai-node src/core/error.ts reads `error.message`/`type`/`code`): the
 * in-stream `{"error":…}` chunk of an encoded Chat stream (R8.3) and the JSON
 * error bodies the gateway answers for Chat and Responses. `code` keeps
 * turnguard's stable code (STREAM_CUT, TIMEOUT…) so hosts can tell them apart.
 */
export function toOpenAiErrorBody(error: TurnError): { message: string; type: string; param: null; code: string } {
  return { message: error.message, type: toOpenAiErrorType(error.kind), param: null, code: error.code };
}

/** OpenAI's `error.type` vocabulary (wire-formats §1.5). */
function toOpenAiErrorType(kind: ErrorKind): string {
  switch (kind) {
    case 'invalid_request':
    case 'prompt_too_long':
    case 'media_too_large':
    case 'max_output_tokens':
    case 'content_filter':
      return 'invalid_request_error';
    case 'auth':
      return 'authentication_error';
    case 'refused_region':
      return 'permission_error';
    case 'rate_limit':
      return 'rate_limit_error';
    case 'overloaded':
    case 'server':
    case 'transport':
    case 'stream_cut':
    case 'timeout':
    case 'aborted':
      return 'server_error';
    default: {
      const _exhaustive: never = kind;
      return _exhaustive;
    }
  }
}
