import type { ProviderFields } from './provider-fields.js';

/**
 * A tool call as the model produced it. `input` is the raw JSON argument text
 * exactly as streamed: it may be truncated or malformed (R3.13, R3.14), so it
 * is parsed by the tool layer, not here.
 */
export interface ToolCallPart {
  type: 'tool-call';
  toolCallId: string;
  toolName: string;
  input: string;
  providerFields?: ProviderFields;
}
