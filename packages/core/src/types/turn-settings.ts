import type { ProviderFields } from './provider-fields.js';
import type { ToolChoice, ToolDefinition } from './tool-definition.js';

/** How the model is asked: everything in a request that is not the conversation. */
export interface TurnSettings {
  model: string;
  stream: boolean;
  maxOutputTokens?: number;
  tools?: ToolDefinition[];
  toolChoice?: ToolChoice;
  /** Top-level native fields not modelled here (temperature, metadata, vendor extras…). */
  providerFields?: ProviderFields;
}
