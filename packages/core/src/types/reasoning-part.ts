import type { ProviderFields } from './provider-fields.js';

/**
 * Model reasoning (thinking). Round-trip fields are kept untouched (R3.5):
 * Anthropic `signature` and `redacted_thinking.data` (as `encrypted` with
 * `redacted: true`), Responses `encrypted_content` and item `id`.
 */
export interface ReasoningPart {
  type: 'reasoning';
  text: string;
  signature?: string;
  encrypted?: string;
  redacted?: boolean;
  id?: string;
  providerFields?: ProviderFields;
}
