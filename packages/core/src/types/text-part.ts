import type { ProviderFields } from './provider-fields.js';

export interface TextPart {
  type: 'text';
  text: string;
  providerFields?: ProviderFields;
}
