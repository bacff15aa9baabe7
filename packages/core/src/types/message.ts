import type { ImagePart } from './image-part.js';
import type { ProviderFields } from './provider-fields.js';
import type { ReasoningPart } from './reasoning-part.js';
import type { TextPart } from './text-part.js';
import type { ToolCallPart } from './tool-call-part.js';
import type { ToolResultPart } from './tool-result-part.js';

interface MessageBase {
  /** Seen by the model, hidden from the host's transcript (SPEC "meta message"). */
  isMeta?: boolean;
  providerFields?: ProviderFields;
}

export interface SystemMessage extends MessageBase {
  role: 'system';
  content: TextPart[];
}

export interface UserMessage extends MessageBase {
  role: 'user';
  content: Array<TextPart | ImagePart>;
}

export interface AssistantMessage extends MessageBase {
  role: 'assistant';
  content: Array<TextPart | ReasoningPart | ToolCallPart>;
  /** R2.2: a pseudo assistant message standing for an API error, not model output. */
  isApiErrorMessage?: boolean;
  apiError?: { kind: string; code: string; status?: number };
  errorDetails?: string;
}

/** Results of tool calls. Protocols that carry them in a user message (Messages) convert. */
export interface ToolMessage extends MessageBase {
  role: 'tool';
  content: ToolResultPart[];
}

export type Message = SystemMessage | UserMessage | AssistantMessage | ToolMessage;
export type MessagePart = Message['content'][number];
