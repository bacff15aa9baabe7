import type {
  AssistantMessage,
  Message,
  Prompt,
  SystemMessage,
  ToolMessage,
  ToolResultPart,
  TurnSettings,
  UserMessage,
} from '@turnguard/core';
import { TurnError } from '@turnguard/core';
import { collectProviderFields, SHAPE_HINT_KEY, type IndexedExtra, type ShapeHint } from './messages-shape-hints.js';
import { isRecord, type MessageCreateParams, type NativeRecord } from './messages-types.js';
import {
  parseTextBlock,
  parseThinkingBlock,
  parseToolResultBlock,
  parseToolUseBlock,
  parseUserContentBlocks,
} from './parse-messages-content.js';
import { parseMessagesToolChoice, parseMessagesTools } from './prepare-messages-tools.js';

type ToolNames = Map<string, string>;

function invalidRequest(message: string): TurnError {
  return new TurnError({ kind: 'invalid_request', message: `Messages request: ${message}`, status: 400 });
}

/** Blocks of a native string-or-array content as an array, with the content hint the rebuild needs. */
function blocksOf(content: unknown, where: string): { blocks: unknown[]; contentHint: ShapeHint['content'] } {
  if (typeof content === 'string') return { blocks: [{ type: 'text', text: content }], contentHint: 'string' };
  if (Array.isArray(content)) return { blocks: content, contentHint: undefined };
  throw invalidRequest(`${where} content must be a string or an array`);
}

function parseSystem(system: unknown): SystemMessage {
  const { blocks, contentHint } = blocksOf(system, 'system');
  const content: SystemMessage['content'] = [];
  const extraBlocks: IndexedExtra[] = [];
  blocks.forEach((block, index) => {
    const part = isRecord(block) ? parseTextBlock(block) : undefined;
    if (part === undefined) extraBlocks.push({ index, value: block });
    else content.push(part);
  });
  const message: SystemMessage = { role: 'system', content };
  // A one-block array would be rebuilt as a string by default; say it was blocks.
  const providerFields = collectProviderFields({}, [], {
    content: contentHint === undefined ? 'blocks' : undefined,
    extraBlocks: extraBlocks.length > 0 ? extraBlocks : undefined,
  });
  if (providerFields !== undefined) message.providerFields = providerFields;
  return message;
}

/** Splits a native user message into tool-result runs (ToolMessage) and other runs (UserMessage), in order. */
function parseUserMessage(content: unknown[], toolNames: ToolNames): Array<UserMessage | ToolMessage> {
  const runs: Array<{ toolResults: boolean; blocks: unknown[] }> = [];
  for (const block of content) {
    const isResult = isRecord(block) && block['type'] === 'tool_result';
    const last = runs.at(-1);
    if (last !== undefined && last.toolResults === isResult) last.blocks.push(block);
    else runs.push({ toolResults: isResult, blocks: [block] });
  }
  if (runs.length === 0) return [{ role: 'user', content: [] }];
  return runs.map((run): UserMessage | ToolMessage => {
    if (!run.toolResults) {
      const { parts, extraBlocks } = parseUserContentBlocks(run.blocks);
      const message: UserMessage = { role: 'user', content: parts };
      const providerFields = collectProviderFields({}, [], { extraBlocks: extraBlocks.length > 0 ? extraBlocks : undefined });
      if (providerFields !== undefined) message.providerFields = providerFields;
      return message;
    }
    const results: ToolResultPart[] = [];
    const extraBlocks: IndexedExtra[] = [];
    run.blocks.forEach((block, index) => {
      const part = isRecord(block) ? parseToolResultBlock(block, toolNames) : undefined;
      if (part === undefined) extraBlocks.push({ index, value: block });
      else results.push(part);
    });
    const message: ToolMessage = { role: 'tool', content: results };
    const providerFields = collectProviderFields({}, [], { extraBlocks: extraBlocks.length > 0 ? extraBlocks : undefined });
    if (providerFields !== undefined) message.providerFields = providerFields;
    return message;
  });
}

function parseAssistantMessage(content: unknown[], toolNames: ToolNames): AssistantMessage {
  const parts: AssistantMessage['content'] = [];
  const extraBlocks: IndexedExtra[] = [];
  content.forEach((block, index) => {
    const part = isRecord(block) ? (parseTextBlock(block) ?? parseThinkingBlock(block) ?? parseToolUseBlock(block)) : undefined;
    if (part === undefined) {
      extraBlocks.push({ index, value: block });
      return;
    }
    if (part.type === 'tool-call') toolNames.set(part.toolCallId, part.toolName);
    parts.push(part);
  });
  const message: AssistantMessage = { role: 'assistant', content: parts };
  const providerFields = collectProviderFields({}, [], { extraBlocks: extraBlocks.length > 0 ? extraBlocks : undefined });
  if (providerFields !== undefined) message.providerFields = providerFields;
  return message;
}

/** Merges the native message's own unknown keys and shape facts into the first neutral message made from it. */
function annotateFirst(message: Message, native: NativeRecord, extraHint: ShapeHint): void {
  const own = collectProviderFields(native, ['role', 'content']) ?? {};
  const existing = message.providerFields ?? {};
  const mergedHint = { ...(existing[SHAPE_HINT_KEY] as ShapeHint | undefined), ...extraHint };
  const merged = collectProviderFields({ ...own, ...existing }, [SHAPE_HINT_KEY], mergedHint);
  if (merged !== undefined) message.providerFields = merged;
}

function parseNativeMessages(nativeMessages: unknown): Message[] {
  if (!Array.isArray(nativeMessages)) throw invalidRequest('`messages` must be an array');
  const toolNames: ToolNames = new Map();
  const result: Message[] = [];
  let previousRole: unknown;
  nativeMessages.forEach((native: unknown, index) => {
    if (!isRecord(native)) throw invalidRequest(`messages.${index} must be an object`);
    const role = native['role'];
    const { blocks, contentHint } = blocksOf(native['content'], `messages.${index}`);
    let produced: Message[];
    if (role === 'user') produced = parseUserMessage(blocks, toolNames);
    else if (role === 'assistant') produced = [parseAssistantMessage(blocks, toolNames)];
    else if (role === 'system') {
      const { parts, extraBlocks } = parseUserContentBlocks(blocks);
      const onlyText = parts.every((part) => part.type === 'text');
      if (!onlyText) throw invalidRequest(`messages.${index}: a system message holds text only`);
      const message: SystemMessage = { role: 'system', content: parts as SystemMessage['content'] };
      const providerFields = collectProviderFields({}, [], { inlineSystem: true, extraBlocks: extraBlocks.length > 0 ? extraBlocks : undefined });
      if (providerFields !== undefined) message.providerFields = providerFields;
      produced = [message];
    } else throw invalidRequest(`messages.${index}.role must be "user", "assistant" or "system"`);
    const first = produced[0];
    if (first !== undefined) {
      annotateFirst(first, native, {
        content: contentHint,
        // The rebuild merges consecutive user-side messages; record where the native request had a boundary.
        newNativeMessage: role === 'user' && previousRole === 'user' ? true : undefined,
      });
    }
    result.push(...produced);
    previousRole = role;
  });
  return result;
}

const MODELLED_FIELDS = ['model', 'max_tokens', 'messages', 'system', 'tools', 'tool_choice'];

/** Native Messages request → neutral prompt and settings, keeping every unknown field (R7.1, gateway). */
export function parseMessagesRequest(native: MessageCreateParams): { prompt: Prompt; settings: TurnSettings } {
  if (!isRecord(native)) throw invalidRequest('body must be a JSON object');
  if (typeof native['model'] !== 'string') throw invalidRequest('`model` must be a string');
  const messages: Message[] = [];
  if (native['system'] !== undefined) messages.push(parseSystem(native['system']));
  messages.push(...parseNativeMessages(native['messages']));

  const settings: TurnSettings = { model: native['model'], stream: native['stream'] === true };
  if (typeof native['max_tokens'] === 'number') settings.maxOutputTokens = native['max_tokens'];
  const known = [...MODELLED_FIELDS.filter((key) => key !== 'max_tokens' || typeof native['max_tokens'] === 'number')];
  // `stream: true` is modelled; `false` is kept verbatim so the rebuild says it again.
  if (native['stream'] === true) known.push('stream');
  const hint: ShapeHint = {};
  if (Array.isArray(native['tools'])) {
    const { tools, extraTools } = parseMessagesTools(native['tools']);
    settings.tools = tools;
    if (extraTools.length > 0) hint.extraTools = extraTools;
    if (tools.length === 0 && extraTools.length > 0) delete settings.tools;
  } else if (native['tools'] !== undefined) known.splice(known.indexOf('tools'), 1);
  const toolChoice = parseMessagesToolChoice(native['tool_choice']);
  if (toolChoice !== undefined) {
    settings.toolChoice = toolChoice.toolChoice;
    if (toolChoice.extras !== undefined) hint.toolChoiceExtras = toolChoice.extras;
  } else known.splice(known.indexOf('tool_choice'), 1);
  const providerFields = collectProviderFields(native, known, hint);
  if (providerFields !== undefined) settings.providerFields = providerFields;
  return { prompt: { messages }, settings };
}
