import type {
  ChatCompletionAssistantMessageParam,
  ChatCompletionContentPartText,
  ChatCompletionMessageParam,
  ChatCompletionMessageToolCall,
  ChatCompletionToolMessageParam,
} from 'openai/resources/chat/completions';
import type {
  AssistantMessage,
  ImagePart,
  Message,
  ReasoningPart,
  SystemMessage,
  TextPart,
  ToolCallPart,
  ToolMessage,
  ToolResultPart,
  UserMessage,
} from '@turnguard/core';
import {
  insertOpaqueParts,
  splitProviderFields,
  type ChatContentForm,
  type ChatMessageHints,
  type ChatPartHints,
} from './chat-wire-hints.js';

/**
 * R3.5: `content` of an assistant turn that has only reasoning. Compatible
 * servers reject an assistant message with neither content nor tool_calls
 * (DeepSeek: "content or tool_calls must be set"; Mistral: "must have either
 * content or tool_calls"), so the reasoning goes in `reasoning_content` and
 * this short note fills `content`.
 */
export const REASONING_ONLY_CONTENT_NOTE =
  '[Thinking was cut off before an answer. The system kept it above in reasoning_content; you may continue from it or ignore it.]';

export interface ChatMessageConversionOptions {
  /**
   * Where assistant reasoning is sent back: `reasoning_content` (DeepSeek and
   * most compatible servers; vercel/ai convert-to-openai-compatible-chat-messages.ts),
   * `reasoning` (vLLM after PR #50624), or `omit` (OpenAI's own API has no
   * reasoning field). Default `reasoning_content`. A parsed message keeps its own field.
   */
  reasoningField?: 'reasoning_content' | 'reasoning' | 'omit';
}

type NativeMessage = ChatCompletionMessageParam & Record<string, unknown>;

/** Neutral messages → Chat `messages` (R7.1). Meta messages are plain messages on the wire. */
export function convertToChatMessages(
  messages: readonly Message[],
  options: ChatMessageConversionOptions = {},
): ChatCompletionMessageParam[] {
  const native: ChatCompletionMessageParam[] = [];
  for (const message of messages) {
    switch (message.role) {
      case 'system':
        native.push(convertSystemMessage(message));
        break;
      case 'user':
        native.push(convertUserMessage(message));
        break;
      case 'assistant': {
        const assistant = convertAssistantMessage(message, options);
        if (assistant !== undefined) native.push(assistant);
        break;
      }
      case 'tool':
        native.push(...convertToolMessage(message));
        break;
      default: {
        const _exhaustive: never = message;
        throw new Error(`unknown message role ${String((_exhaustive as Message).role)}`);
      }
    }
  }
  return native;
}

function convertSystemMessage(message: SystemMessage): ChatCompletionMessageParam {
  const { hints, nativeFields } = splitProviderFields<ChatMessageHints>(message.providerFields);
  const content = convertContent(message.content.map(convertTextPart), hints, message.content);
  return { ...nativeFields, role: hints.role ?? 'system', ...content } as NativeMessage;
}

function convertUserMessage(message: UserMessage): ChatCompletionMessageParam {
  const { hints, nativeFields } = splitProviderFields<ChatMessageHints>(message.providerFields);
  const parts = message.content.map((part) => (part.type === 'text' ? convertTextPart(part) : convertImagePart(part)));
  return { ...nativeFields, role: 'user', ...convertContent(parts, hints, message.content) } as NativeMessage;
}

/**
 * A string when the parts are one plain text (what most clients send), else an
 * array; a parsed message keeps the form it arrived in.
 */
function convertContent(
  nativeParts: unknown[],
  hints: ChatMessageHints,
  neutralParts: ReadonlyArray<TextPart | ImagePart>,
): { content?: unknown } {
  const allText = neutralParts.every((part) => part.type === 'text');
  const plainSingleText = neutralParts.length === 1 && allText && neutralParts[0]?.providerFields === undefined;
  const form: ChatContentForm = hints.contentForm ?? (plainSingleText ? 'string' : 'array');
  switch (form) {
    case 'string':
      return { content: neutralParts.map((part) => (part.type === 'text' ? part.text : '')).join('') };
    case 'array':
      return { content: insertOpaqueParts(nativeParts, hints.opaqueParts) };
    case 'null':
      return { content: null };
    case 'absent':
      return {};
    default: {
      const _exhaustive: never = form;
      return _exhaustive;
    }
  }
}

function convertTextPart(part: TextPart): ChatCompletionContentPartText {
  const { nativeFields } = splitProviderFields<ChatPartHints>(part.providerFields);
  return { ...nativeFields, type: 'text', text: part.text };
}

function convertImagePart(part: ImagePart): unknown {
  const { hints, nativeFields } = splitProviderFields<ChatPartHints>(part.providerFields);
  const url =
    part.source.kind === 'url' ? part.source.url : `data:${part.source.mediaType};base64,${part.source.data}`;
  return { ...nativeFields, type: 'image_url', image_url: { ...hints.imageUrlExtras, url } };
}

function convertAssistantMessage(
  message: AssistantMessage,
  options: ChatMessageConversionOptions,
): ChatCompletionAssistantMessageParam | undefined {
  const { hints, nativeFields } = splitProviderFields<ChatMessageHints>(message.providerFields);
  const textParts = message.content.filter((part): part is TextPart => part.type === 'text');
  const toolCalls = message.content.filter((part): part is ToolCallPart => part.type === 'tool-call');
  // Reasoning read from typed thinking content parts goes back inside `content`, not in the reasoning field.
  const reasoningParts = message.content.filter(
    (part): part is ReasoningPart => part.type === 'reasoning' && !isThinkingContentPart(part),
  );
  const text = textParts.map((part) => part.text).join('');
  const reasoning = reasoningParts.map((part) => part.text).join('');
  const parsedFromWire = message.providerFields !== undefined && hints.contentForm !== undefined;

  // R3.5: a turn with no text, no tool call and no reasoning is dropped. A
  // message parsed from a native request is forwarded as the client sent it.
  if (!parsedFromWire && text === '' && toolCalls.length === 0 && reasoning === '') return undefined;

  const native: Record<string, unknown> = { ...nativeFields, role: 'assistant' };
  const form = hints.contentForm;
  if (form === 'array') {
    native.content = insertOpaqueParts(message.content.flatMap(convertAssistantContentPart), hints.opaqueParts);
  } else if (form === 'string') {
    native.content = text;
  } else if (form === 'null') {
    native.content = null;
  } else if (form === undefined) {
    // vercel/ai sends `content: null` next to tool calls with no text; R3.5 note for reasoning-only turns.
    native.content = text !== '' ? text : toolCalls.length > 0 ? null : REASONING_ONLY_CONTENT_NOTE;
  }

  const reasoningField = hints.reasoningField ?? options.reasoningField ?? 'reasoning_content';
  const sendReasoning = hints.reasoningField !== undefined || (reasoning !== '' && reasoningField !== 'omit');
  if (sendReasoning && reasoningField !== 'omit') native[reasoningField] = reasoning;

  if (toolCalls.length > 0) native.tool_calls = toolCalls.map(convertToolCallPart);
  return native as unknown as ChatCompletionAssistantMessageParam;
}

/** The parts an array `content` is built from, in order: text parts and typed thinking parts. */
function convertAssistantContentPart(part: AssistantMessage['content'][number]): unknown[] {
  if (part.type === 'text') return [convertTextPart(part)];
  if (part.type !== 'reasoning' || !isThinkingContentPart(part)) return [];
  const { hints, nativeFields } = splitProviderFields<ChatPartHints>(part.providerFields);
  const original = hints.thinkingPart!;
  // An edited text cannot keep the original chunking: it goes back as one text chunk (Mistral's shape).
  const thinking = original.text === part.text ? original.thinking : [{ type: 'text', text: part.text }];
  return [{ ...nativeFields, type: 'thinking', thinking }];
}

function isThinkingContentPart(part: ReasoningPart): boolean {
  return splitProviderFields<ChatPartHints>(part.providerFields).hints.thinkingPart !== undefined;
}

function convertToolCallPart(part: ToolCallPart): ChatCompletionMessageToolCall {
  const { hints, nativeFields } = splitProviderFields<ChatPartHints>(part.providerFields);
  const call: Record<string, unknown> = { ...nativeFields, id: part.toolCallId };
  if (hints.customToolCall === true) {
    call.type = 'custom';
    call.custom = { ...hints.innerExtras, name: part.toolName, input: part.input };
  } else {
    if (hints.typeAbsent !== true) call.type = 'function';
    call.function = { ...hints.innerExtras, name: part.toolName, arguments: part.input };
  }
  return call as unknown as ChatCompletionMessageToolCall;
}

/** Chat has one `role: tool` message per result, and tool content holds only text parts. */
function convertToolMessage(message: ToolMessage): ChatCompletionToolMessageParam[] {
  const { hints, nativeFields } = splitProviderFields<ChatMessageHints>(message.providerFields);
  return message.content.map((result) => convertToolResult(result, hints, nativeFields));
}

export const TOOL_RESULT_IMAGE_PLACEHOLDER = '[image omitted: Chat Completions tool results carry text only]';

function convertToolResult(
  result: ToolResultPart,
  hints: ChatMessageHints,
  messageFields: Record<string, unknown>,
): ChatCompletionToolMessageParam {
  const { nativeFields } = splitProviderFields<ChatPartHints>(result.providerFields);
  const base = { ...messageFields, ...nativeFields, role: 'tool' as const, tool_call_id: result.toolCallId };
  if (typeof result.output === 'string') {
    return { ...base, content: result.output };
  }
  const parts = result.output.map((part) =>
    part.type === 'text' ? convertTextPart(part) : { type: 'text' as const, text: TOOL_RESULT_IMAGE_PLACEHOLDER },
  );
  return { ...base, content: insertOpaqueParts(parts, hints.opaqueParts) as ChatCompletionContentPartText[] };
}
