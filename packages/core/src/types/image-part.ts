import type { ProviderFields } from './provider-fields.js';

export type ImageSource =
  | { kind: 'url'; url: string }
  | { kind: 'base64'; mediaType: string; data: string };

export interface ImagePart {
  type: 'image';
  source: ImageSource;
  providerFields?: ProviderFields;
}
