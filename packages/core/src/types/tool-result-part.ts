import type { ImagePart } from './image-part.js';
import type { ProviderFields } from './provider-fields.js';
import type { TextPart } from './text-part.js';

export interface ToolResultPart {
  type: 'tool-result';
  toolCallId: string;
  toolName?: string;
  output: string | Array<TextPart | ImagePart>;
  isError?: boolean;
  providerFields?: ProviderFields;
}
