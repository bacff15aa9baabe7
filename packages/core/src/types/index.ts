export type { Usage, UsageField } from './usage.js';
export { USAGE_FIELDS } from './usage.js';
export type { FinishReason, UnifiedFinishReason } from './finish-reason.js';
export type { ProviderFields } from './provider-fields.js';
export type { TextPart } from './text-part.js';
export type { ReasoningPart } from './reasoning-part.js';
export type { ToolCallPart } from './tool-call-part.js';
export type { ImagePart, ImageSource } from './image-part.js';
export type { ToolResultPart } from './tool-result-part.js';
export type {
  Message,
  MessagePart,
  SystemMessage,
  UserMessage,
  AssistantMessage,
  ToolMessage,
} from './message.js';
export type { ToolDefinition, ToolChoice } from './tool-definition.js';
export type { Prompt } from './prompt.js';
export type { TurnSettings } from './turn-settings.js';
export type { TurnEvent, TurnEventType, StreamEnd, DecodedStreamEvent, ChainHop } from './turn-event.js';
