import type { Protocol } from '@turnguard/core';
import type { EventSourceMessage } from 'eventsource-parser';

type Json = Record<string, any>;

export interface StrictReadOptions {
  /** Chat: the client asked for `stream_options.include_usage`. */
  wantsUsage: boolean;
  /** The client left early: the stream may stop anywhere (no end required). */
  unterminated: boolean;
}

/**
 * The strictest reading a client can make of one SSE response (R8.7, R8.13):
 * the protocol's own state machine, as the official SDKs and the strictest
 * real clients (Claude Code, Codex CLI) hold it. Returns what broke it, in
 * order; an empty list is a valid stream.
 */
export function checkStrictStream(protocol: Protocol, records: readonly EventSourceMessage[], options: StrictReadOptions): string[] {
  switch (protocol) {
    case 'chat':
      return checkChat(records, options);
    case 'messages':
      return checkMessages(records, options);
    case 'responses':
      return checkResponses(records, options);
    default: {
      const _exhaustive: never = protocol;
      return _exhaustive;
    }
  }
}

function parse(data: string): Json | undefined {
  try {
    const value: unknown = JSON.parse(data);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
  } catch {
    return undefined;
  }
}

/** openai-node's Stream and ChatCompletionStream: JSON chunks of one response, one finish, the usage chunk if asked, one `[DONE]`, an error chunk only before it. */
function checkChat(records: readonly EventSourceMessage[], options: StrictReadOptions): string[] {
  const problems: string[] = [];
  let state: 'open' | 'finished' | 'failed' | 'done' = 'open';
  let usageChunks = 0;
  let responseId: string | undefined;
  for (const [at, record] of records.entries()) {
    const where = `#${at}`;
    if (state === 'done') {
      problems.push(`${where}: a record after [DONE]`);
      continue;
    }
    if (record.data === '[DONE]') {
      state = 'done';
      continue;
    }
    const chunk = parse(record.data);
    if (chunk === undefined) {
      problems.push(`${where}: data is not a JSON object`);
      continue;
    }
    if (chunk.error !== undefined) {
      if (state === 'failed') problems.push(`${where}: a second error chunk`);
      if (state === 'finished') problems.push(`${where}: an error chunk after the finish`);
      state = 'failed';
      continue;
    }
    if (state === 'failed') {
      problems.push(`${where}: a chunk after the error chunk`);
      continue;
    }
    if (chunk.object !== 'chat.completion.chunk') problems.push(`${where}: not a chat.completion.chunk`);
    if (responseId === undefined) responseId = chunk.id;
    else if (chunk.id !== responseId) problems.push(`${where}: a second response id ${chunk.id} (first ${responseId})`);
    const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
    if (choices.length === 0) {
      if (chunk.usage == null) problems.push(`${where}: a chunk with no choice and no usage`);
      else if (!options.wantsUsage) problems.push(`${where}: a usage chunk the client did not ask for`);
      usageChunks += 1;
      if (usageChunks > 1) problems.push(`${where}: a second usage chunk`);
      continue;
    }
    if (state === 'finished') {
      problems.push(`${where}: a choice after the finish`);
      continue;
    }
    if (choices.some((choice: Json) => choice.finish_reason != null)) state = 'finished';
  }
  if (!options.unterminated && state !== 'done') problems.push('the stream did not end with [DONE]');
  return problems;
}

const MESSAGES_EVENTS = new Set(['message_start', 'content_block_start', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop', 'ping', 'error']);

/** @anthropic-ai/sdk's MessageStream and Claude Code: one message_start, blocks one at a time with growing indices, one message_delta, one message_stop — or an error event, last. */
function checkMessages(records: readonly EventSourceMessage[], options: StrictReadOptions): string[] {
  const problems: string[] = [];
  let state: 'before' | 'open' | 'delta' | 'ended' = 'before';
  let openBlock: number | undefined;
  let lastIndex = -1;
  for (const [at, record] of records.entries()) {
    const where = `#${at} ${record.event ?? '(no event)'}`;
    if (state === 'ended') {
      problems.push(`${where}: a record after the end`);
      continue;
    }
    if (record.event === undefined || !MESSAGES_EVENTS.has(record.event)) {
      problems.push(`${where}: not a Messages event`);
      continue;
    }
    const body = parse(record.data);
    if (body === undefined || body.type !== record.event) {
      problems.push(`${where}: data does not match its event`);
      continue;
    }
    switch (record.event) {
      case 'error':
        state = 'ended';
        continue;
      case 'ping':
        continue;
      case 'message_start':
        if (state !== 'before') problems.push(`${where}: a second message_start`);
        state = 'open';
        continue;
      default:
        if (state === 'before') problems.push(`${where}: before message_start`);
    }
    switch (record.event) {
      case 'content_block_start':
        if (state === 'delta') problems.push(`${where}: a block after message_delta`);
        if (openBlock !== undefined) problems.push(`${where}: starts while block ${openBlock} is open`);
        if (!(body.index > lastIndex)) problems.push(`${where}: index ${body.index} does not grow (last ${lastIndex})`);
        openBlock = body.index;
        lastIndex = Math.max(lastIndex, body.index);
        continue;
      case 'content_block_delta':
        if (body.index !== openBlock) problems.push(`${where}: delta for block ${body.index}, open ${openBlock}`);
        continue;
      case 'content_block_stop':
        if (body.index !== openBlock) problems.push(`${where}: stop for block ${body.index}, open ${openBlock}`);
        openBlock = undefined;
        continue;
      case 'message_delta':
        if (state === 'delta') problems.push(`${where}: a second message_delta`);
        if (openBlock !== undefined) problems.push(`${where}: block ${openBlock} still open`);
        state = 'delta';
        continue;
      case 'message_stop':
        if (state !== 'delta') problems.push(`${where}: message_stop with no message_delta before it`);
        state = 'ended';
        continue;
    }
  }
  if (!options.unterminated && state !== 'ended') problems.push('the stream ended with neither message_stop nor an error');
  return problems;
}

const RESPONSES_TERMINALS = new Set(['response.completed', 'response.incomplete', 'response.failed']);

/** openai-node's ResponseStream and Codex CLI: one response.created first, growing sequence numbers and output indices, items added once and done once, one terminal event, last. */
function checkResponses(records: readonly EventSourceMessage[], options: StrictReadOptions): string[] {
  const problems: string[] = [];
  let lastSequence = -1;
  let created = false;
  let ended = false;
  let lastAdded = -1;
  const open = new Set<number>();
  for (const [at, record] of records.entries()) {
    const where = `#${at} ${record.event ?? '(no event)'}`;
    if (ended) {
      problems.push(`${where}: a record after the terminal event`);
      continue;
    }
    const body = parse(record.data);
    if (body === undefined || (record.event !== undefined && body.type !== record.event)) {
      problems.push(`${where}: data is not the event's JSON`);
      continue;
    }
    if (typeof body.sequence_number !== 'number' || !(body.sequence_number > lastSequence)) problems.push(`${where}: sequence_number ${body.sequence_number} does not grow (last ${lastSequence})`);
    else lastSequence = body.sequence_number;
    if (body.type === 'response.created') {
      if (created) problems.push(`${where}: a second response.created`);
      created = true;
      continue;
    }
    if (!created) problems.push(`${where}: before response.created`);
    if (RESPONSES_TERMINALS.has(body.type)) {
      ended = true;
      continue;
    }
    if (body.type === 'response.output_item.added') {
      if (!(body.output_index > lastAdded)) problems.push(`${where}: output_index ${body.output_index} does not grow (last ${lastAdded})`);
      lastAdded = Math.max(lastAdded, body.output_index);
      open.add(body.output_index);
      continue;
    }
    if (body.type === 'response.output_item.done') {
      if (!open.delete(body.output_index)) problems.push(`${where}: done for output_index ${body.output_index}, which is not open`);
      continue;
    }
    if (typeof body.output_index === 'number' && !open.has(body.output_index)) problems.push(`${where}: for output_index ${body.output_index}, which is not open`);
  }
  if (!options.unterminated && !ended) problems.push('the stream ended with no terminal event');
  return problems;
}
