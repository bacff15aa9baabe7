import type { ErrorKind } from '@turnguard/core';

/**
 * Anthropic's `error.type` for each R2 kind (anthropic-sdk-typescript
 * src/resources/shared.ts ErrorType): used for in-stream `event: error`
 * frames and for JSON error bodies in the Messages shape.
 */
export function toMessagesErrorType(kind: ErrorKind): string {
  switch (kind) {
    case 'overloaded':
      return 'overloaded_error';
    case 'rate_limit':
      return 'rate_limit_error';
    case 'auth':
      return 'authentication_error';
    case 'refused_region':
      return 'permission_error';
    case 'timeout':
      return 'timeout_error';
    case 'media_too_large':
    case 'prompt_too_long':
    case 'invalid_request':
    case 'content_filter':
    case 'max_output_tokens':
      return 'invalid_request_error';
    case 'server':
    case 'transport':
    case 'stream_cut':
    case 'aborted':
      return 'api_error';
    default: {
      const _exhaustive: never = kind;
      return String(_exhaustive);
    }
  }
}
