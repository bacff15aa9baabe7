import { toChatFinishReason, toChatUsage } from '@turnguard/adapter-chat';
import { convertUsageToMessages, mapFinishReasonToMessages } from '@turnguard/adapter-messages';
import { convertToResponsesUsage } from '@turnguard/adapter-responses';
import type { Protocol } from '@turnguard/core';
import type { OutputBlock, TurnOutput } from './collect-turn-output.js';
import type { Json } from './json-record.js';


/** A successful turn as the protocol's non-streaming JSON body (the shape the official SDKs return). */
export function renderJsonBody(protocol: Protocol, output: TurnOutput, requestModel: string | undefined): Json {
  switch (protocol) {
    case 'chat':
      return renderChatCompletion(output, requestModel);
    case 'messages':
      return renderMessagesMessage(output, requestModel);
    case 'responses':
      return renderResponsesResponse(output, requestModel);
    default: {
      const _exhaustive: never = protocol;
      return _exhaustive;
    }
  }
}

function joinText(blocks: OutputBlock[], type: 'text' | 'reasoning'): string | undefined {
  const parts = blocks.filter((block) => block.type === type).map((block) => (block as { text: string }).text);
  return parts.length === 0 ? undefined : parts.join('');
}

/** openai-node `ChatCompletion` (resources/chat/completions.ts). */
function renderChatCompletion(output: TurnOutput, requestModel: string | undefined): Json {
  const toolCalls = output.blocks.flatMap((block) =>
    block.type === 'tool-call' ? [{ id: block.toolCallId, type: 'function', function: { name: block.toolName, arguments: block.input } }] : [],
  );
  const reasoning = joinText(output.blocks, 'reasoning');
  const message: Json = { role: 'assistant', content: joinText(output.blocks, 'text') ?? null, refusal: null };
  // The compatible servers' field (DeepSeek), as the stream encoder relays it.
  if (reasoning !== undefined) message.reasoning_content = reasoning;
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  const usage = output.usage === undefined ? undefined : toChatUsage(output.usage);
  return {
    id: output.responseId ?? `chatcmpl-turnguard-${globalThis.crypto.randomUUID()}`,
    object: 'chat.completion',
    created: output.createdAt ?? Math.floor(Date.now() / 1000),
    model: output.model ?? requestModel ?? '',
    choices: [
      {
        index: 0,
        message,
        logprobs: null,
        finish_reason: output.finishReason === undefined ? 'stop' : toChatFinishReason(output.finishReason),
      },
    ],
    ...(usage === undefined ? {} : { usage }),
  };
}

export function parseToolInput(input: string): unknown {
  if (input.trim() === '') return {};
  try {
    return JSON.parse(input) as unknown;
  } catch {
    // Kept as text rather than dropped: the host's tool layer reports it (R3.13).
    return input;
  }
}

/** anthropic-sdk-typescript `Message` (resources/messages/messages.ts). */
function renderMessagesMessage(output: TurnOutput, requestModel: string | undefined): Json {
  const content = output.blocks.map((block): Json => {
    switch (block.type) {
      case 'text':
        return { type: 'text', text: block.text };
      case 'reasoning':
        return block.redacted
          ? { type: 'redacted_thinking', data: block.encrypted ?? '' }
          : { type: 'thinking', thinking: block.text, signature: block.signature ?? '' };
      case 'tool-call':
        return { type: 'tool_use', id: block.toolCallId, name: block.toolName, input: parseToolInput(block.input) };
      default: {
        const _exhaustive: never = block;
        return _exhaustive;
      }
    }
  });
  return {
    id: output.responseId ?? `msg_turnguard_${globalThis.crypto.randomUUID().replace(/-/g, '')}`,
    type: 'message',
    role: 'assistant',
    model: output.model ?? requestModel ?? 'unknown',
    content,
    stop_reason: output.finishReason === undefined ? 'end_turn' : mapFinishReasonToMessages(output.finishReason),
    stop_sequence: null,
    usage: convertUsageToMessages(output.usage),
  };
}

/** openai-node `Response` (resources/responses/responses.ts); the SDK adds `output_text` itself. */
function renderResponsesResponse(output: TurnOutput, requestModel: string | undefined): Json {
  let index = 0;
  const items = output.blocks.map((block): Json => {
    index += 1;
    switch (block.type) {
      case 'text':
        return {
          id: block.id === '' ? `msg_turnguard_${index}` : block.id,
          type: 'message',
          status: 'completed',
          role: 'assistant',
          content: [{ type: 'output_text', text: block.text, annotations: [], logprobs: [] }],
        };
      case 'reasoning':
        return {
          id: block.id === '' ? `rs_turnguard_${index}` : block.id,
          type: 'reasoning',
          summary: block.text === '' ? [] : [{ type: 'summary_text', text: block.text }],
          ...(block.encrypted === undefined ? {} : { encrypted_content: block.encrypted }),
        };
      case 'tool-call': {
        const itemId = typeof block.providerFields?.itemId === 'string' ? block.providerFields.itemId : `fc_${block.toolCallId}`;
        const base = { id: itemId, status: 'completed', call_id: block.toolCallId, name: block.toolName };
        return block.providerFields?.itemType === 'custom_tool_call'
          ? { ...base, type: 'custom_tool_call', input: block.input }
          : { ...base, type: 'function_call', arguments: block.input };
      }
      default: {
        const _exhaustive: never = block;
        return _exhaustive;
      }
    }
  });
  const unified = output.finishReason?.unified;
  const incomplete = unified === 'length' ? 'max_output_tokens' : unified === 'content-filter' ? 'content_filter' : undefined;
  return {
    id: output.responseId ?? `resp_turnguard_${globalThis.crypto.randomUUID().replace(/-/g, '')}`,
    object: 'response',
    created_at: output.createdAt ?? Math.floor(Date.now() / 1000),
    model: output.model ?? requestModel ?? '',
    status: incomplete === undefined ? 'completed' : 'incomplete',
    output: items,
    error: null,
    incomplete_details: incomplete === undefined ? null : { reason: incomplete },
    ...(output.usage === undefined ? {} : { usage: convertToResponsesUsage(output.usage) }),
  };
}
