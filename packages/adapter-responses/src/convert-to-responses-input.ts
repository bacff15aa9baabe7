import type {
  AssistantMessage,
  ImagePart,
  Message,
  ReasoningPart,
  TextPart,
  ToolCallPart,
  ToolResultPart,
} from '@turnguard/core';
import type { JsonObject } from './native-json.js';
import { readNativeExtras, readResponsesShape } from './responses-shape.js';

/**
 * Neutral messages → Responses `input` items (R7.1). One neutral message
 * becomes one item, except an assistant message, which becomes one item per
 * reasoning part / tool call and one `message` item per run of text parts.
 * Meta messages are ordinary user messages: the model sees them (SPEC "meta message").
 */
export function convertToResponsesInput(messages: Message[]): JsonObject[] {
  return messages.flatMap((message) => convertMessage(message));
}

function convertMessage(message: Message): JsonObject[] {
  const shape = readResponsesShape(message.providerFields);
  if (shape.rawItem !== undefined) return [shape.rawItem];
  const extras = readNativeExtras(message.providerFields);
  switch (message.role) {
    case 'system': {
      const role = shape.role ?? 'system';
      return [{ role, content: convertContent(message.content, shape.contentAsString, shape.rawContent, 'input'), ...extras }];
    }
    case 'user':
      return [{ role: 'user', content: convertContent(message.content, shape.contentAsString, shape.rawContent, 'input'), ...extras }];
    case 'assistant':
      return convertAssistantMessage(message);
    case 'tool':
      return message.content.map((part) => convertToolResult(part));
    default: {
      const _exhaustive: never = message;
      return _exhaustive;
    }
  }
}

function convertContent(
  parts: Array<TextPart | ImagePart>,
  contentAsString: boolean | undefined,
  rawContent: unknown[] | undefined,
  direction: 'input' | 'output',
): string | unknown[] {
  if (rawContent !== undefined) return rawContent;
  const [onlyPart] = parts;
  if (contentAsString === true && parts.length === 1 && onlyPart?.type === 'text') return onlyPart.text;
  return parts.map((part) => (part.type === 'text' ? convertTextPart(part, direction) : convertImagePart(part)));
}

function convertTextPart(part: TextPart, direction: 'input' | 'output'): JsonObject {
  const type = direction === 'input' ? 'input_text' : 'output_text';
  // The SDK's `ResponseOutputText` requires `annotations`; a text that did not
  // come from a Responses request gets an empty list.
  const defaults = direction === 'output' && part.providerFields === undefined ? { annotations: [] } : {};
  return { type, text: part.text, ...defaults, ...readNativeExtras(part.providerFields) };
}

function convertImagePart(part: ImagePart): JsonObject {
  const imageUrl =
    part.source.kind === 'url' ? part.source.url : `data:${part.source.mediaType};base64,${part.source.data}`;
  return { type: 'input_image', image_url: imageUrl, ...readNativeExtras(part.providerFields) };
}

function convertAssistantMessage(message: AssistantMessage): JsonObject[] {
  // R2.2: a pseudo message standing for an API error is not model output.
  if (message.isApiErrorMessage === true) return [];
  const shape = readResponsesShape(message.providerFields);
  const items: JsonObject[] = [];
  let messageFieldsUsed = false;
  let textRun: TextPart[] = [];
  const flushTextRun = (): void => {
    if (textRun.length === 0) return;
    // The message-level native fields (id, status, type…) belong to the one
    // `message` item the neutral message was parsed from.
    const extras = messageFieldsUsed ? {} : readNativeExtras(message.providerFields);
    messageFieldsUsed = true;
    const content = convertContent(textRun, shape.contentAsString, shape.rawContent, 'output');
    items.push({ role: 'assistant', content, ...extras });
    textRun = [];
  };
  for (const part of message.content) {
    if (part.type === 'text') {
      textRun.push(part);
      continue;
    }
    flushTextRun();
    const item = part.type === 'reasoning' ? convertReasoningPart(part) : convertToolCallPart(part);
    if (item !== undefined) items.push(item);
  }
  flushTextRun();
  if (items.length === 0 && shape.rawContent !== undefined) {
    items.push({ role: 'assistant', content: shape.rawContent, ...readNativeExtras(message.providerFields) });
  }
  return items;
}

/**
 * R3.5: reasoning goes back as a `reasoning` item with its `id` and
 * `encrypted_content` untouched (wire-formats §6.3). A reasoning part that
 * never came from Responses (no id, no encrypted content, no native fields)
 * cannot be sent — the API needs one of them — so it is left out, as vercel/ai
 * `convert-to-openai-responses-input.ts` does.
 */
function convertReasoningPart(part: ReasoningPart): JsonObject | undefined {
  if (part.id === undefined && part.encrypted === undefined && part.providerFields === undefined) return undefined;
  return {
    type: 'reasoning',
    ...(part.id !== undefined ? { id: part.id } : {}),
    summary: part.text === '' ? [] : [{ type: 'summary_text', text: part.text }],
    ...(part.encrypted !== undefined ? { encrypted_content: part.encrypted } : {}),
    ...readNativeExtras(part.providerFields),
  };
}

function convertToolCallPart(part: ToolCallPart): JsonObject {
  const shape = readResponsesShape(part.providerFields);
  const extras = readNativeExtras(part.providerFields);
  if (shape.itemType === 'custom_tool_call') {
    return { type: 'custom_tool_call', call_id: part.toolCallId, name: part.toolName, input: part.input, ...extras };
  }
  return { type: 'function_call', call_id: part.toolCallId, name: part.toolName, arguments: part.input, ...extras };
}

function convertToolResult(part: ToolResultPart): JsonObject {
  const shape = readResponsesShape(part.providerFields);
  const type = shape.itemType === 'custom_tool_call_output' ? 'custom_tool_call_output' : 'function_call_output';
  const output =
    shape.rawContent ??
    (typeof part.output === 'string'
      ? part.output
      : part.output.map((outputPart) =>
          outputPart.type === 'text' ? convertTextPart(outputPart, 'input') : convertImagePart(outputPart),
        ));
  return { type, call_id: part.toolCallId, output, ...readNativeExtras(part.providerFields) };
}
