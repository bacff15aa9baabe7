import type {
  AssistantMessage,
  ImagePart,
  Message,
  ReasoningPart,
  TextPart,
  ToolCallPart,
  ToolMessage,
} from '@turnguard/core';
import { TurnError } from '@turnguard/core';
import { readThinkingText } from './chat-content-parts.js';
import {
  isRecord,
  joinProviderFields,
  omitKeys,
  type ChatContentForm,
  type ChatMessageHints,
  type ChatPartHints,
  type OpaqueContentPart,
} from './chat-wire-hints.js';

/**
 * Chat `messages` → neutral messages, for the gateway (R7.1). Every field the
 * neutral types do not model is kept in `providerFields` so that
 * `convertToChatMessages(parseChatMessages(x))` deep-equals `x`.
 */
export function parseChatMessages(messages: unknown): Message[] {
  if (!Array.isArray(messages)) {
    throw invalidRequest('`messages` must be an array');
  }
  return messages.map((message, index) => parseChatMessage(message, index));
}

function parseChatMessage(message: unknown, index: number): Message {
  if (!isRecord(message)) throw invalidRequest(`messages[${index}] must be an object`);
  switch (message.role) {
    case 'system':
    case 'developer': {
      const { parts, hints } = parseContent(message.content, ['text']);
      const messageHints: ChatMessageHints = { ...hints, role: message.role === 'developer' ? 'developer' : undefined };
      return withProviderFields({ role: 'system', content: parts as TextPart[] }, omitKeys(message, ['role', 'content']), messageHints);
    }
    case 'user': {
      const { parts, hints } = parseContent(message.content, ['text', 'image_url']);
      return withProviderFields({ role: 'user', content: parts as Array<TextPart | ImagePart> }, omitKeys(message, ['role', 'content']), hints);
    }
    case 'assistant':
      return parseAssistantMessage(message, index);
    case 'tool':
      return parseToolMessage(message, index);
    default:
      // The deprecated `function` role has no tool_call_id to pair with, so it cannot be carried faithfully.
      throw invalidRequest(`messages[${index}] has an unsupported role ${JSON.stringify(message.role)}`);
  }
}

function parseAssistantMessage(message: Record<string, unknown>, index: number): AssistantMessage {
  // Assistant content may hold typed thinking parts (Mistral's reasoning models, R7.1).
  const { parts, hints } = parseContent(message.content, ['text', 'thinking']);
  const content: AssistantMessage['content'] = [];
  const known = ['role', 'content', 'tool_calls'];

  // Compatible servers' reasoning round-trip field (wire-formats §6.2): DeepSeek `reasoning_content`, vLLM `reasoning`.
  const reasoningField =
    typeof message.reasoning_content === 'string'
      ? ('reasoning_content' as const)
      : typeof message.reasoning === 'string'
        ? ('reasoning' as const)
        : undefined;
  if (reasoningField !== undefined) {
    const reasoning: ReasoningPart = { type: 'reasoning', text: message[reasoningField] as string };
    content.push(reasoning);
    known.push(reasoningField);
  }
  content.push(...(parts as Array<TextPart | ReasoningPart>));

  if (Array.isArray(message.tool_calls) && message.tool_calls.length > 0) {
    content.push(...message.tool_calls.map((call, callIndex) => parseToolCall(call, index, callIndex)));
  } else if (message.tool_calls !== undefined) {
    // `tool_calls: []` or `null` cannot be told apart from "no tool calls" in neutral form: keep it verbatim.
    known.splice(known.indexOf('tool_calls'), 1);
  }
  return withProviderFields({ role: 'assistant', content }, omitKeys(message, known), { ...hints, reasoningField });
}

function parseToolCall(call: unknown, messageIndex: number, callIndex: number): ToolCallPart {
  const where = `messages[${messageIndex}].tool_calls[${callIndex}]`;
  if (!isRecord(call) || typeof call.id !== 'string') throw invalidRequest(`${where} must have a string id`);
  const custom = call.type === 'custom';
  const inner = custom ? call.custom : call.function;
  if (!isRecord(inner) || typeof inner.name !== 'string') throw invalidRequest(`${where} must name its tool`);
  const input = custom ? inner.input : inner.arguments;
  if (typeof input !== 'string') throw invalidRequest(`${where} must carry its input as a string`);
  const hints: ChatPartHints = {
    customToolCall: custom ? true : undefined,
    typeAbsent: call.type === undefined ? true : undefined,
    innerExtras: nonEmpty(omitKeys(inner, ['name', custom ? 'input' : 'arguments'])),
  };
  const part: ToolCallPart = { type: 'tool-call', toolCallId: call.id, toolName: inner.name, input };
  const providerFields = joinProviderFields(omitKeys(call, ['id', 'type', custom ? 'custom' : 'function']), hints);
  return providerFields === undefined ? part : { ...part, providerFields };
}

function parseToolMessage(message: Record<string, unknown>, index: number): ToolMessage {
  if (typeof message.tool_call_id !== 'string') throw invalidRequest(`messages[${index}].tool_call_id must be a string`);
  const known = ['role', 'content', 'tool_call_id'];
  if (typeof message.content === 'string') {
    const result = { type: 'tool-result' as const, toolCallId: message.tool_call_id, output: message.content };
    return withProviderFields({ role: 'tool', content: [result] }, omitKeys(message, known), {});
  }
  const { parts, hints } = parseContent(message.content, ['text', 'image_url']);
  const result = { type: 'tool-result' as const, toolCallId: message.tool_call_id, output: parts as Array<TextPart | ImagePart> };
  return withProviderFields({ role: 'tool', content: [result] }, omitKeys(message, known), { opaqueParts: hints.opaqueParts });
}

/** Native `content` → neutral parts; parts of other types are kept, by position, as opaque hints. */
type ModelledPartType = 'text' | 'image_url' | 'thinking';

function parseContent(
  content: unknown,
  modelledTypes: ReadonlyArray<ModelledPartType>,
): { parts: Array<TextPart | ImagePart | ReasoningPart>; hints: ChatMessageHints } {
  if (typeof content === 'string') {
    return { parts: [{ type: 'text', text: content }], hints: { contentForm: 'string' } };
  }
  if (!Array.isArray(content)) {
    const contentForm: ChatContentForm = content === null ? 'null' : 'absent';
    return { parts: [], hints: { contentForm } };
  }
  const parts: Array<TextPart | ImagePart | ReasoningPart> = [];
  const opaqueParts: OpaqueContentPart[] = [];
  content.forEach((part, index) => {
    const parsed = isRecord(part) ? parseContentPart(part, modelledTypes) : undefined;
    if (parsed === undefined) opaqueParts.push({ index, part });
    else parts.push(parsed);
  });
  return { parts, hints: { contentForm: 'array', opaqueParts: opaqueParts.length > 0 ? opaqueParts : undefined } };
}

function parseContentPart(
  part: Record<string, unknown>,
  modelledTypes: ReadonlyArray<ModelledPartType>,
): TextPart | ImagePart | ReasoningPart | undefined {
  if (part.type === 'thinking' && modelledTypes.includes('thinking')) return parseThinkingPart(part);
  if (part.type === 'text' && modelledTypes.includes('text') && typeof part.text === 'string') {
    const providerFields = joinProviderFields(omitKeys(part, ['type', 'text']), {});
    return providerFields === undefined ? { type: 'text', text: part.text } : { type: 'text', text: part.text, providerFields };
  }
  if (part.type === 'image_url' && modelledTypes.includes('image_url') && isRecord(part.image_url)) {
    const url = part.image_url.url;
    if (typeof url !== 'string') return undefined;
    const hints: ChatPartHints = { imageUrlExtras: nonEmpty(omitKeys(part.image_url, ['url'])) };
    const providerFields = joinProviderFields(omitKeys(part, ['type', 'image_url']), hints);
    const image: ImagePart = { type: 'image', source: parseImageUrl(url) };
    return providerFields === undefined ? image : { ...image, providerFields };
  }
  return undefined;
}

/** `{type:"thinking", thinking}` → reasoning; the native `thinking` value is kept so an unedited part goes back verbatim. */
function parseThinkingPart(part: Record<string, unknown>): ReasoningPart | undefined {
  const text = readThinkingText(part.thinking);
  if (text === undefined) return undefined;
  const hints: ChatPartHints = { thinkingPart: { thinking: part.thinking, text } };
  return { type: 'reasoning', text, providerFields: joinProviderFields(omitKeys(part, ['type', 'thinking']), hints) };
}

/** A base64 data URL becomes base64 (so capacity estimates can skip it, R4.7); anything else stays a URL. */
function parseImageUrl(url: string): ImagePart['source'] {
  const match = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  if (match?.[1] !== undefined && match[2] !== undefined) {
    return { kind: 'base64', mediaType: match[1], data: match[2] };
  }
  return { kind: 'url', url };
}

function withProviderFields<T extends Message>(message: T, nativeFields: Record<string, unknown>, hints: object): T {
  const providerFields = joinProviderFields(nativeFields, hints);
  return providerFields === undefined ? message : { ...message, providerFields };
}

function nonEmpty(fields: Record<string, unknown>): Record<string, unknown> | undefined {
  return Object.keys(fields).length > 0 ? fields : undefined;
}

function invalidRequest(message: string): TurnError {
  return new TurnError({ kind: 'invalid_request', code: 'INVALID_CHAT_REQUEST', message, retryable: false });
}
