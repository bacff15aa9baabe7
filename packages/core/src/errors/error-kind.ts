/** R2.1 error kinds, each with its stable upper-case code. */
export const ERROR_KINDS = {
  rate_limit: 'RATE_LIMIT',
  overloaded: 'OVERLOADED',
  server: 'SERVER',
  transport: 'TRANSPORT',
  stream_cut: 'STREAM_CUT',
  prompt_too_long: 'PROMPT_TOO_LONG',
  media_too_large: 'MEDIA_TOO_LARGE',
  max_output_tokens: 'MAX_OUTPUT_TOKENS',
  auth: 'AUTH',
  invalid_request: 'INVALID_REQUEST',
  content_filter: 'CONTENT_FILTER',
  refused_region: 'REFUSED_REGION',
  timeout: 'TIMEOUT',
  aborted: 'ABORTED',
} as const;

export type ErrorKind = keyof typeof ERROR_KINDS;
export type DefaultErrorCode = (typeof ERROR_KINDS)[ErrorKind];

/** Kinds that are retryable unless the builder says otherwise (R1.1, R1.2). */
const RETRYABLE_BY_DEFAULT: ReadonlySet<ErrorKind> = new Set<ErrorKind>([
  'rate_limit',
  'overloaded',
  'server',
  'transport',
]);

export function isRetryableByDefault(kind: ErrorKind): boolean {
  return RETRYABLE_BY_DEFAULT.has(kind);
}
