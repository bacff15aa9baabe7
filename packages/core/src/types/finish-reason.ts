/**
 * Why a response ended, as `{ unified, raw }` (vercel/ai style): `unified` is
 * the neutral reason, `raw` the provider's own string, kept for diagnostics.
 * A finish reason exists only when the protocol's terminal frame was seen.
 */
export type UnifiedFinishReason =
  | 'stop'
  | 'length'
  | 'tool-calls'
  | 'content-filter'
  | 'error'
  | 'other';

export interface FinishReason {
  unified: UnifiedFinishReason;
  raw: string | undefined;
}
