import type {
  AssistantMessage,
  ImagePart,
  Message,
  ReasoningPart,
  TextPart,
  ToolMessage,
  ToolResultPart,
} from '@turnguard/core';
import { isJsonObject, pickUnknownFields, readString, type JsonObject } from './native-json.js';
import { buildProviderFields, type ResponsesShape } from './responses-shape.js';

const MESSAGE_KNOWN_KEYS = new Set(['role', 'content']);
const TEXT_PART_KNOWN_KEYS = new Set(['type', 'text']);
const IMAGE_PART_KNOWN_KEYS = new Set(['type', 'image_url']);
const REASONING_KNOWN_KEYS = new Set(['type', 'id', 'summary', 'encrypted_content']);
const FUNCTION_CALL_KNOWN_KEYS = new Set(['type', 'call_id', 'name', 'arguments']);
const CUSTOM_CALL_KNOWN_KEYS = new Set(['type', 'call_id', 'name', 'input']);
const CALL_OUTPUT_KNOWN_KEYS = new Set(['type', 'call_id', 'output']);
const DATA_URL = /^data:([^;,]+);base64,(.*)$/s;

/**
 * Responses `input` items → neutral messages, one message per item, keeping
 * every field we do not model (R7.1 lossless gateway). Items we cannot model
 * at all (web_search_call, item_reference, …) are kept verbatim as an empty
 * message whose providerFields hold the item.
 */
export function parseResponsesInput(items: unknown[]): Message[] {
  return items.map((item) => parseInputItem(item));
}

function parseInputItem(item: unknown): Message {
  if (!isJsonObject(item)) return keepItemVerbatim({ value: item });
  const type = item.type;
  if ((type === undefined || type === 'message') && typeof item.role === 'string') {
    return parseMessageItem(item) ?? keepItemVerbatim(item);
  }
  switch (type) {
    case 'reasoning':
      return parseReasoningItem(item) ?? keepItemVerbatim(item);
    case 'function_call':
    case 'custom_tool_call':
      return parseToolCallItem(item) ?? keepItemVerbatim(item);
    case 'function_call_output':
    case 'custom_tool_call_output':
      return parseToolOutputItem(item) ?? keepItemVerbatim(item);
    default:
      return keepItemVerbatim(item);
  }
}

function keepItemVerbatim(item: JsonObject): Message {
  const providerFields = buildProviderFields({}, { rawItem: item });
  // Tool-ish items the model produced (`*_call`) sit on the assistant side.
  const type = readString(item.type) ?? '';
  return type.endsWith('_call') ? { role: 'assistant', content: [], providerFields } : { role: 'user', content: [], providerFields };
}

function parseMessageItem(item: JsonObject): Message | undefined {
  const extras = pickUnknownFields(item, MESSAGE_KNOWN_KEYS);
  const parsed = parseContent(item.content, item.role === 'assistant' ? 'output_text' : 'input_text');
  if (parsed === undefined) return undefined;
  const shape: ResponsesShape = { contentAsString: parsed.contentAsString, rawContent: parsed.rawContent };
  switch (item.role) {
    case 'system':
    case 'developer': {
      const texts = parsed.parts.filter((part): part is TextPart => part.type === 'text');
      if (texts.length !== parsed.parts.length) shape.rawContent = item.content as unknown[];
      if (item.role === 'developer') shape.role = 'developer';
      shape.placement = 'input';
      return { role: 'system', content: texts, providerFields: buildProviderFields(extras, shape) };
    }
    case 'user':
      return { role: 'user', content: parsed.parts, providerFields: buildProviderFields(extras, shape) };
    case 'assistant': {
      const texts = parsed.parts.filter((part): part is TextPart => part.type === 'text');
      if (texts.length !== parsed.parts.length) shape.rawContent = item.content as unknown[];
      return { role: 'assistant', content: texts, providerFields: buildProviderFields(extras, shape) };
    }
    default:
      return undefined;
  }
}

interface ParsedContent {
  parts: Array<TextPart | ImagePart>;
  contentAsString?: boolean;
  /** Set when a part could not be modelled: the original content goes back verbatim. */
  rawContent?: unknown[];
}

function parseContent(content: unknown, textType: 'input_text' | 'output_text'): ParsedContent | undefined {
  if (typeof content === 'string') return { parts: [{ type: 'text', text: content }], contentAsString: true };
  if (!Array.isArray(content)) return undefined;
  const parts: Array<TextPart | ImagePart> = [];
  let modelledAll = true;
  for (const rawPart of content) {
    const part = isJsonObject(rawPart) ? parseContentPart(rawPart, textType) : undefined;
    if (part === undefined) modelledAll = false;
    else parts.push(part);
  }
  return modelledAll ? { parts } : { parts, rawContent: content };
}

function parseContentPart(part: JsonObject, textType: 'input_text' | 'output_text'): TextPart | ImagePart | undefined {
  if (part.type === textType && typeof part.text === 'string') {
    return { type: 'text', text: part.text, providerFields: pickUnknownFields(part, TEXT_PART_KNOWN_KEYS) };
  }
  if (part.type === 'input_image' && typeof part.image_url === 'string') {
    const providerFields = pickUnknownFields(part, IMAGE_PART_KNOWN_KEYS);
    const dataUrl = DATA_URL.exec(part.image_url);
    if (dataUrl?.[1] !== undefined && dataUrl[2] !== undefined) {
      return { type: 'image', source: { kind: 'base64', mediaType: dataUrl[1], data: dataUrl[2] }, providerFields };
    }
    return { type: 'image', source: { kind: 'url', url: part.image_url }, providerFields };
  }
  return undefined;
}

function parseReasoningItem(item: JsonObject): AssistantMessage | undefined {
  const summary = item.summary;
  if (!Array.isArray(summary)) return undefined;
  const texts = summary.map((entry) => (isJsonObject(entry) ? readString(entry.text) : undefined));
  const extras = pickUnknownFields(item, REASONING_KNOWN_KEYS);
  const text = texts.every((entry) => entry !== undefined) ? texts.join('\n\n') : '';
  const rebuilt = text === '' ? [] : [{ type: 'summary_text', text }];
  // Several summary parts, or parts with extra fields, cannot be rebuilt from
  // the joined text: keep the original list verbatim.
  if (JSON.stringify(rebuilt) !== JSON.stringify(summary)) extras.summary = summary;
  const id = readString(item.id);
  const encrypted = readString(item.encrypted_content);
  if (id === undefined && 'id' in item) extras.id = item.id;
  if (encrypted === undefined && 'encrypted_content' in item) extras.encrypted_content = item.encrypted_content;
  const part: ReasoningPart = {
    type: 'reasoning',
    text,
    ...(id !== undefined ? { id } : {}),
    ...(encrypted !== undefined ? { encrypted } : {}),
    providerFields: buildProviderFields(extras),
  };
  return { role: 'assistant', content: [part] };
}

function parseToolCallItem(item: JsonObject): AssistantMessage | undefined {
  const isCustom = item.type === 'custom_tool_call';
  const input = isCustom ? item.input : item.arguments;
  if (typeof item.call_id !== 'string' || typeof item.name !== 'string' || typeof input !== 'string') return undefined;
  const extras = pickUnknownFields(item, isCustom ? CUSTOM_CALL_KNOWN_KEYS : FUNCTION_CALL_KNOWN_KEYS);
  const shape: ResponsesShape = isCustom ? { itemType: 'custom_tool_call' } : {};
  return {
    role: 'assistant',
    content: [
      { type: 'tool-call', toolCallId: item.call_id, toolName: item.name, input, providerFields: buildProviderFields(extras, shape) },
    ],
  };
}

function parseToolOutputItem(item: JsonObject): ToolMessage | undefined {
  if (typeof item.call_id !== 'string') return undefined;
  const extras = pickUnknownFields(item, CALL_OUTPUT_KNOWN_KEYS);
  const shape: ResponsesShape = item.type === 'custom_tool_call_output' ? { itemType: 'custom_tool_call_output' } : {};
  let output: ToolResultPart['output'];
  if (typeof item.output === 'string') {
    output = item.output;
  } else {
    const parsed = parseContent(item.output, 'input_text');
    if (parsed === undefined) return undefined;
    output = parsed.parts;
    shape.rawContent = parsed.rawContent;
  }
  const part: ToolResultPart = {
    type: 'tool-result',
    toolCallId: item.call_id,
    output,
    providerFields: buildProviderFields(extras, shape),
  };
  return { role: 'tool', content: [part] };
}
