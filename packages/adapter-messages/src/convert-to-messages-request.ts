import type { Message, Prompt, ProviderFields, TurnSettings } from '@turnguard/core';
import {
  convertImagePart,
  convertReasoningPart,
  convertTextPart,
  convertToolCallPart,
  convertToolResultPart,
  isPlainTextBlock,
  shapeContent,
} from './convert-to-messages-content.js';
import { insertIndexedExtras, nativeFieldsOf, readShapeHint } from './messages-shape-hints.js';
import { isRecord, type MessageCreateParams, type NativeRecord } from './messages-types.js';
import { prepareMessagesToolChoice, prepareMessagesTools } from './prepare-messages-tools.js';

/**
 * `max_tokens` is required by the Messages API. When the neutral settings do
 * not give one we send 4096, which every Claude model accepts (claude-3-haiku's
 * maximum). With extended thinking the budget must stay below `max_tokens`
 * (SDK ThinkingConfigEnabled), so the default then is budget + 4096.
 */
export const DEFAULT_MAX_TOKENS = 4096;

interface NativeMessageDraft {
  role: 'user' | 'assistant' | 'system';
  blocks: NativeRecord[];
  /** Provider fields of the neutral message that opened it (shape hint, unknown keys). */
  providerFields: ProviderFields | undefined;
  /** More than one neutral message was merged in: content must be a block array. */
  merged: boolean;
}

function convertMessageBlocks(message: Message): NativeRecord[] {
  const blocks: NativeRecord[] = [];
  for (const part of message.content) {
    switch (part.type) {
      case 'text':
        blocks.push(convertTextPart(part));
        break;
      case 'image':
        blocks.push(convertImagePart(part));
        break;
      case 'reasoning': {
        const block = convertReasoningPart(part);
        if (block !== undefined) blocks.push(block);
        break;
      }
      case 'tool-call':
        blocks.push(convertToolCallPart(part));
        break;
      case 'tool-result':
        blocks.push(convertToolResultPart(part));
        break;
      default: {
        const _exhaustive: never = part;
        throw new Error(`unknown message part ${String(_exhaustive)}`);
      }
    }
  }
  return insertIndexedExtras(blocks, readShapeHint(message.providerFields).extraBlocks);
}

/**
 * Tool results and user text go to the API in user messages; results first
 * in the message that follows the tool_use (wire-formats §6.1). Consecutive
 * user-side neutral messages (tool results, a meta continuation, user text)
 * therefore share one native user message unless the hint says the native
 * request had them apart.
 */
function appendUserSide(drafts: NativeMessageDraft[], message: Message, blocks: NativeRecord[]): void {
  const last = drafts.at(-1);
  if (last !== undefined && last.role === 'user' && readShapeHint(message.providerFields).newNativeMessage !== true) {
    last.blocks.push(...blocks);
    last.merged = true;
    return;
  }
  drafts.push({ role: 'user', blocks, providerFields: message.providerFields, merged: false });
}

function finishDraft(draft: NativeMessageDraft): NativeRecord {
  const content = draft.merged ? draft.blocks : shapeContent(draft.blocks, draft.providerFields);
  return { ...nativeFieldsOf(draft.providerFields), role: draft.role, content };
}

/** Top-level `system`: a string for one plain text part (the usual form), blocks otherwise. */
function buildSystem(systemMessages: Message[]): string | NativeRecord[] | undefined {
  if (systemMessages.length === 0) return undefined;
  const blocks = systemMessages.flatMap(convertMessageBlocks);
  const wantsBlocks = systemMessages.some((message) => readShapeHint(message.providerFields).content === 'blocks');
  const only = blocks[0];
  if (!wantsBlocks && blocks.length === 1 && only !== undefined && isPlainTextBlock(only)) return only.text;
  return blocks;
}

export function convertToMessagesMessages(messages: Message[]): {
  system: string | NativeRecord[] | undefined;
  messages: NativeRecord[];
} {
  const systemMessages: Message[] = [];
  const drafts: NativeMessageDraft[] = [];
  for (const message of messages) {
    switch (message.role) {
      case 'system':
        if (readShapeHint(message.providerFields).inlineSystem === true) {
          drafts.push({ role: 'system', blocks: convertMessageBlocks(message), providerFields: message.providerFields, merged: false });
        } else {
          systemMessages.push(message);
        }
        break;
      // Meta messages (isMeta) are plain user messages to the model; only the host hides them.
      case 'user':
      case 'tool':
        appendUserSide(drafts, message, convertMessageBlocks(message));
        break;
      case 'assistant': {
        // R2.2 pseudo messages stand for an API error in the host's transcript; they are not model output.
        if (message.isApiErrorMessage === true) break;
        const blocks = convertMessageBlocks(message);
        // R3.5: an assistant turn with nothing the API can take back (no text, tool call or signed thinking) is dropped.
        if (blocks.length === 0) break;
        drafts.push({ role: 'assistant', blocks, providerFields: message.providerFields, merged: false });
        break;
      }
      default: {
        const _exhaustive: never = message;
        throw new Error(`unknown message role ${String(_exhaustive)}`);
      }
    }
  }
  return { system: buildSystem(systemMessages), messages: drafts.map(finishDraft) };
}

function defaultMaxTokens(providerFields: ProviderFields | undefined): number {
  const thinking = providerFields?.['thinking'];
  const budget = isRecord(thinking) ? thinking['budget_tokens'] : undefined;
  return typeof budget === 'number' ? budget + DEFAULT_MAX_TOKENS : DEFAULT_MAX_TOKENS;
}

/** Neutral prompt + settings → native Messages request body (R7.1). */
export function convertToMessagesRequest(prompt: Prompt, settings: TurnSettings): MessageCreateParams {
  const hint = readShapeHint(settings.providerFields);
  const { system, messages } = convertToMessagesMessages(prompt.messages);
  // Unknown top-level fields first, so the modelled fields below always win.
  const request: NativeRecord = { ...nativeFieldsOf(settings.providerFields) };
  request['model'] = settings.model;
  request['max_tokens'] = settings.maxOutputTokens ?? defaultMaxTokens(settings.providerFields);
  if (system !== undefined) request['system'] = system;
  request['messages'] = messages;
  const tools = prepareMessagesTools(settings.tools, hint.extraTools);
  if (tools !== undefined) request['tools'] = tools;
  const toolChoice = prepareMessagesToolChoice(settings.toolChoice, hint.toolChoiceExtras);
  if (toolChoice !== undefined) request['tool_choice'] = toolChoice;
  if (settings.stream) request['stream'] = true;
  return request as unknown as MessageCreateParams;
}
