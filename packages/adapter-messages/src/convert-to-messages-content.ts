import type {
  ImagePart,
  ProviderFields,
  ReasoningPart,
  TextPart,
  ToolCallPart,
  ToolResultPart,
} from '@turnguard/core';
import { insertIndexedExtras, nativeFieldsOf, readShapeHint } from './messages-shape-hints.js';
import { isRecord, type NativeRecord } from './messages-types.js';

/** Neutral parts → native Messages content blocks (R7.1). Pure. */

export function convertTextPart(part: TextPart): NativeRecord {
  return { ...nativeFieldsOf(part.providerFields), type: 'text', text: part.text };
}

export function convertImagePart(part: ImagePart): NativeRecord {
  const source =
    part.source.kind === 'url'
      ? { type: 'url', url: part.source.url }
      : { type: 'base64', media_type: part.source.mediaType, data: part.source.data };
  return { ...nativeFieldsOf(part.providerFields), type: 'image', source };
}

/**
 * R3.5: thinking goes back with its signature byte-for-byte; a modified or
 * re-serialised block is rejected with "Invalid `signature` in `thinking`
 * block" (anthropics/anthropic-sdk-python#1598). Reasoning without a
 * signature (e.g. produced by another protocol) cannot be verified by the API,
 * so it is left out rather than sent as a block that would 400.
 */
export function convertReasoningPart(part: ReasoningPart): NativeRecord | undefined {
  const nativeFields = nativeFieldsOf(part.providerFields);
  if (part.redacted === true) {
    if (part.encrypted === undefined) return undefined;
    return { ...nativeFields, type: 'redacted_thinking', data: part.encrypted };
  }
  if (part.signature === undefined) return undefined;
  return { ...nativeFields, type: 'thinking', thinking: part.text, signature: part.signature };
}

/**
 * Our `input` is the raw argument text as streamed (core ToolCallPart); the
 * API wants an object. Empty text is a no-argument call (fixture
 * anthropic-tool-no-args: the SDK also reads an empty buffer as `{}`).
 * Text that is not a JSON object (a truncated call) is sent as `{}`: the API
 * rejects anything but an object, and the tool result already says what
 * went wrong (R3.13).
 */
export function parseToolInputText(input: string): unknown {
  if (input.trim() === '') return {};
  try {
    const parsed: unknown = JSON.parse(input);
    return isRecord(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

export function convertToolCallPart(part: ToolCallPart): NativeRecord {
  return {
    ...nativeFieldsOf(part.providerFields),
    type: 'tool_use',
    id: part.toolCallId,
    name: part.toolName,
    input: parseToolInputText(part.input),
  };
}

export function convertToolResultPart(part: ToolResultPart): NativeRecord {
  const hint = readShapeHint(part.providerFields);
  const block: NativeRecord = {
    ...nativeFieldsOf(part.providerFields),
    type: 'tool_result',
    tool_use_id: part.toolCallId,
  };
  if (typeof part.output === 'string') {
    if (!(hint.contentAbsent === true && part.output === '')) block['content'] = part.output;
  } else {
    const blocks = part.output.map((item) => (item.type === 'text' ? convertTextPart(item) : convertImagePart(item)));
    block['content'] = insertIndexedExtras(blocks, hint.extraBlocks);
  }
  if (part.isError !== undefined) block['is_error'] = part.isError;
  return block;
}

/** A plain text block (no cache_control, citations…) that may be written as a bare string. */
export function isPlainTextBlock(block: NativeRecord): block is { type: 'text'; text: string } {
  return block['type'] === 'text' && typeof block['text'] === 'string' && Object.keys(block).length === 2;
}

/** Block array or bare string, as the shape hint of the message asks (default: blocks). */
export function shapeContent(blocks: NativeRecord[], providerFields: ProviderFields | undefined): string | NativeRecord[] {
  const hint = readShapeHint(providerFields);
  const only = blocks[0];
  if (hint.content === 'string' && blocks.length === 1 && only !== undefined && isPlainTextBlock(only)) return only.text;
  return blocks;
}
