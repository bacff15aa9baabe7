import type { Scenario, StreamErrorSpec, UsageSpec } from '../scenario/scenario.js';
import { splitIntoDeltas, splitJsonFragments } from '../scenario/text-pieces.js';
import { makeId, makeRecord, type RenderContext, type RenderedStream, type SseRecord } from './sse.js';

/**
 * Anthropic Messages wire, modelled on vercel/ai recordings
 * `anthropic-text.chunks.txt`, `anthropic-clear-thinking.1.chunks.txt`
 * (thinking deltas, then one `signature_delta` just before the block stop)
 * and `anthropic-tool-no-args.chunks.txt` (`input: {}`, `partial_json: ""`
 * first, pings between blocks). Every record has an `event:` line equal to
 * the JSON `type`; there is no `[DONE]`.
 */

/** Opaque, deterministic stand-in for a thinking signature (real ones are base64 protobuf, "EvQB…"). */
const FAKE_SIGNATURE = 'EvQBCkYICxgCKkB0dXJuZ3VhcmQtdGVzdGtpdC1zaWduYXR1cmU=';

function makeStartUsage(usage: UsageSpec): Record<string, unknown> {
  // Unlike OpenAI, `input_tokens` excludes cache reads/writes (SDK `Usage` doc).
  const wire: Record<string, unknown> = { input_tokens: usage.input };
  if (usage.cacheCreationInput !== undefined) wire.cache_creation_input_tokens = usage.cacheCreationInput;
  if (usage.cachedInput !== undefined) wire.cache_read_input_tokens = usage.cachedInput;
  wire.output_tokens = 1; // the early small value real streams send in message_start
  return wire;
}

function makeDeltaUsage(usage: UsageSpec): Record<string, unknown> {
  const wire: Record<string, unknown> = { input_tokens: usage.input };
  if (usage.cacheCreationInput !== undefined) wire.cache_creation_input_tokens = usage.cacheCreationInput;
  if (usage.cachedInput !== undefined) wire.cache_read_input_tokens = usage.cachedInput;
  wire.output_tokens = usage.output; // cumulative (SDK MessageStream overwrites, never adds)
  if (usage.reasoning !== undefined) wire.output_tokens_details = { thinking_tokens: usage.reasoning };
  return wire;
}

function getNaturalStopReason(scenario: Scenario): string {
  return scenario.steps.some((step) => step.type === 'tool-call') ? 'tool_use' : 'end_turn';
}

function makeToolUseId(context: RenderContext, index: number, given: string | undefined): string {
  return given ?? makeId('toolu_01', context, index);
}

function makeStopDelta(reason: string): Record<string, unknown> {
  const delta: Record<string, unknown> = { stop_reason: reason, stop_sequence: reason === 'stop_sequence' ? 'END' : null };
  if (reason === 'refusal') delta.stop_details = { type: 'refusal', category: null, explanation: null };
  return delta;
}

const record = (payload: { type: string } & Record<string, unknown>): SseRecord => makeRecord(payload.type, payload);

export function renderMessagesStream(scenario: Scenario, context: RenderContext): RenderedStream {
  const message: Record<string, unknown> = {
    model: context.model,
    id: makeId('msg_01', context),
    type: 'message',
    role: 'assistant',
    content: [],
    stop_reason: null,
    stop_sequence: null,
  };
  if (scenario.usage !== undefined) message.usage = makeStartUsage(scenario.usage);
  const content: SseRecord[] = [record({ type: 'message_start', message })];
  if (scenario.steps.length === 0) content.push(record({ type: 'ping' }));

  let toolIndex = 0;
  scenario.steps.forEach((step, index) => {
    const delta = (payload: Record<string, unknown>): SseRecord => record({ type: 'content_block_delta', index, delta: payload });
    switch (step.type) {
      case 'reasoning':
        content.push(record({ type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } }));
        for (const piece of splitIntoDeltas(step.text, scenario.wordsPerDelta)) content.push(delta({ type: 'thinking_delta', thinking: piece }));
        content.push(delta({ type: 'signature_delta', signature: FAKE_SIGNATURE }));
        break;
      case 'text':
        content.push(record({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } }));
        for (const piece of splitIntoDeltas(step.text, scenario.wordsPerDelta)) content.push(delta({ type: 'text_delta', text: piece }));
        break;
      case 'tool-call': {
        const id = makeToolUseId(context, toolIndex++, step.id);
        content.push(record({ type: 'content_block_start', index, content_block: { type: 'tool_use', id, name: step.name, input: {} } }));
        content.push(delta({ type: 'input_json_delta', partial_json: '' }));
        const sent = step.cutAtChar === undefined ? step.arguments : step.arguments.slice(0, step.cutAtChar);
        for (const fragment of splitJsonFragments(sent)) content.push(delta({ type: 'input_json_delta', partial_json: fragment }));
        if (step.cutAtChar !== undefined) return; // cut mid-arguments: no block stop
        break;
      }
      default: {
        const _exhaustive: never = step;
        throw new Error(`unknown step ${String(_exhaustive)}`);
      }
    }
    if (index === 0) content.splice(2, 0, record({ type: 'ping' })); // real streams ping right after the first block start
    content.push(record({ type: 'content_block_stop', index }));
  });

  const reason = (scenario.ending.kind === 'finish' ? scenario.ending.reason : undefined) ?? getNaturalStopReason(scenario);
  const messageDelta: Record<string, unknown> = { type: 'message_delta', delta: makeStopDelta(reason) };
  if (scenario.usage !== undefined) messageDelta.usage = makeDeltaUsage(scenario.usage);
  const terminal = [record(messageDelta as { type: string }), record({ type: 'message_stop' })];
  return { content, terminal };
}

/** `event: error` after HTTP 200 (anthropic-sdk-typescript tests/streaming.test.ts; vercel/ai anthropic test adds `details: null`). */
export function renderMessagesStreamError(error: StreamErrorSpec): SseRecord[] {
  return [
    record({
      type: 'error',
      error: { details: null, type: error.type ?? 'overloaded_error', message: error.message ?? 'Overloaded' },
    }),
  ];
}

/** Non-streaming `message` body (shape of fixtures/messages/json/anthropic-text.json). */
export function renderMessagesJson(scenario: Scenario, context: RenderContext): unknown {
  let toolIndex = 0;
  const blocks = scenario.steps.map((step) => {
    switch (step.type) {
      case 'reasoning':
        return { type: 'thinking', thinking: step.text, signature: FAKE_SIGNATURE };
      case 'text':
        return { type: 'text', text: step.text };
      case 'tool-call':
        return { type: 'tool_use', id: makeToolUseId(context, toolIndex++, step.id), name: step.name, input: parseToolInput(step.arguments) };
      default: {
        const _exhaustive: never = step;
        throw new Error(`unknown step ${String(_exhaustive)}`);
      }
    }
  });
  const reason = (scenario.ending.kind === 'finish' ? scenario.ending.reason : undefined) ?? getNaturalStopReason(scenario);
  const stop = makeStopDelta(reason);
  return {
    model: context.model,
    id: makeId('msg_01', context),
    type: 'message',
    role: 'assistant',
    content: blocks,
    ...stop,
    ...(scenario.usage === undefined ? {} : { usage: { ...makeDeltaUsage(scenario.usage) } }),
  };
}

function parseToolInput(argumentsText: string): unknown {
  if (argumentsText.trim() === '') return {};
  try {
    return JSON.parse(argumentsText) as unknown;
  } catch {
    return {}; // non-JSON arguments cannot be a Messages `input` object; the stream form still carries the raw text
  }
}
