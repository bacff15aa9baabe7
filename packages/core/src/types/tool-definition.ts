import type { ProviderFields } from './provider-fields.js';

export interface ToolDefinition {
  name: string;
  description?: string;
  /** JSON Schema of the arguments object. */
  inputSchema: Record<string, unknown>;
  providerFields?: ProviderFields;
}

export type ToolChoice = 'auto' | 'none' | 'required' | { type: 'tool'; toolName: string };
