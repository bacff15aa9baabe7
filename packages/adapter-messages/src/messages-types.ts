/**
 * Native Anthropic Messages shapes, taken from the official SDK's types only
 * (R7.5). `export type … from` keeps every SDK byte out of the runtime bundle.
 */
export type {
  ContentBlockParam,
  MessageCreateParams,
  MessageParam,
  Tool,
  ToolChoice,
  ToolUnion,
  StopReason,
  RawMessageStreamEvent,
  MessageDeltaUsage,
  Usage as NativeUsage,
} from '@anthropic-ai/sdk/resources/messages';

/** A native object we only read or copy; unknown keys are kept verbatim. */
export type NativeRecord = Record<string, unknown>;

export function isRecord(value: unknown): value is NativeRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
