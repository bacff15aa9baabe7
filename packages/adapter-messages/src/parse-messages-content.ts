import type { ImagePart, ReasoningPart, TextPart, ToolCallPart, ToolResultPart } from '@turnguard/core';
import { collectProviderFields, type IndexedExtra } from './messages-shape-hints.js';
import { isRecord, type NativeRecord } from './messages-types.js';

/**
 * Native Messages content blocks → neutral parts (gateway direction, R7.1).
 * A block that does not fit a neutral part exactly returns undefined and is
 * kept verbatim by the caller as a positioned extra.
 */

function hasExactKeys(value: NativeRecord, keys: ReadonlyArray<string>): boolean {
  const own = Object.keys(value);
  return own.length === keys.length && keys.every((key) => own.includes(key));
}

export function parseTextBlock(block: NativeRecord): TextPart | undefined {
  if (block['type'] !== 'text' || typeof block['text'] !== 'string') return undefined;
  const part: TextPart = { type: 'text', text: block['text'] };
  const providerFields = collectProviderFields(block, ['type', 'text']);
  if (providerFields !== undefined) part.providerFields = providerFields;
  return part;
}

export function parseImageBlock(block: NativeRecord): ImagePart | undefined {
  const source = block['source'];
  if (block['type'] !== 'image' || !isRecord(source)) return undefined;
  let part: ImagePart;
  if (source['type'] === 'base64' && typeof source['media_type'] === 'string' && typeof source['data'] === 'string' && hasExactKeys(source, ['type', 'media_type', 'data'])) {
    part = { type: 'image', source: { kind: 'base64', mediaType: source['media_type'], data: source['data'] } };
  } else if (source['type'] === 'url' && typeof source['url'] === 'string' && hasExactKeys(source, ['type', 'url'])) {
    part = { type: 'image', source: { kind: 'url', url: source['url'] } };
  } else {
    // file sources and anything newer stay native
    return undefined;
  }
  const providerFields = collectProviderFields(block, ['type', 'source']);
  if (providerFields !== undefined) part.providerFields = providerFields;
  return part;
}

export function parseThinkingBlock(block: NativeRecord): ReasoningPart | undefined {
  let part: ReasoningPart;
  let known: string[];
  if (block['type'] === 'thinking' && typeof block['thinking'] === 'string' && typeof block['signature'] === 'string') {
    part = { type: 'reasoning', text: block['thinking'], signature: block['signature'] };
    known = ['type', 'thinking', 'signature'];
  } else if (block['type'] === 'redacted_thinking' && typeof block['data'] === 'string') {
    part = { type: 'reasoning', text: '', encrypted: block['data'], redacted: true };
    known = ['type', 'data'];
  } else {
    return undefined;
  }
  const providerFields = collectProviderFields(block, known);
  if (providerFields !== undefined) part.providerFields = providerFields;
  return part;
}

export function parseToolUseBlock(block: NativeRecord): ToolCallPart | undefined {
  if (block['type'] !== 'tool_use' || typeof block['id'] !== 'string' || typeof block['name'] !== 'string') return undefined;
  // Only an object input survives JSON text and back unchanged.
  if (!isRecord(block['input'])) return undefined;
  const part: ToolCallPart = {
    type: 'tool-call',
    toolCallId: block['id'],
    toolName: block['name'],
    input: JSON.stringify(block['input']),
  };
  const providerFields = collectProviderFields(block, ['type', 'id', 'name', 'input']);
  if (providerFields !== undefined) part.providerFields = providerFields;
  return part;
}

/** Text and images become neutral parts; anything else in a list stays native at its position. */
export function parseUserContentBlocks(blocks: unknown[]): { parts: Array<TextPart | ImagePart>; extraBlocks: IndexedExtra[] } {
  const parts: Array<TextPart | ImagePart> = [];
  const extraBlocks: IndexedExtra[] = [];
  blocks.forEach((block, index) => {
    const part = isRecord(block) ? (parseTextBlock(block) ?? parseImageBlock(block)) : undefined;
    if (part === undefined) extraBlocks.push({ index, value: block });
    else parts.push(part);
  });
  return { parts, extraBlocks };
}

export function parseToolResultBlock(block: NativeRecord, toolNamesById: ReadonlyMap<string, string>): ToolResultPart | undefined {
  if (block['type'] !== 'tool_result' || typeof block['tool_use_id'] !== 'string') return undefined;
  if (block['is_error'] !== undefined && typeof block['is_error'] !== 'boolean') return undefined;
  const content = block['content'];
  let output: ToolResultPart['output'];
  let extraBlocks: IndexedExtra[] | undefined;
  if (content === undefined) output = '';
  else if (typeof content === 'string') output = content;
  else if (Array.isArray(content)) {
    const parsed = parseUserContentBlocks(content);
    output = parsed.parts;
    if (parsed.extraBlocks.length > 0) extraBlocks = parsed.extraBlocks;
  } else return undefined;
  const part: ToolResultPart = { type: 'tool-result', toolCallId: block['tool_use_id'], output };
  const toolName = toolNamesById.get(block['tool_use_id']);
  if (toolName !== undefined) part.toolName = toolName;
  if (typeof block['is_error'] === 'boolean') part.isError = block['is_error'];
  const providerFields = collectProviderFields(block, ['type', 'tool_use_id', 'content', 'is_error'], {
    contentAbsent: content === undefined ? true : undefined,
    extraBlocks,
  });
  if (providerFields !== undefined) part.providerFields = providerFields;
  return part;
}
