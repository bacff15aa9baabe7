import type { Scenario, StreamErrorSpec, UsageSpec } from '../scenario/scenario.js';
import { splitIntoDeltas, splitJsonFragments } from '../scenario/text-pieces.js';
import { makeId, makeRecord, type RenderContext, type RenderedStream, type SseRecord } from './sse.js';

/**
 * OpenAI Responses wire, modelled on vercel/ai recordings
 * `azure-text.1.chunks.txt`, `xai-text-streaming.1.chunks.txt` (reasoning
 * summary parts) and `openai-reasoning-encrypted-content.1.chunks.txt`
 * (function_call items, `arguments` deltas keyed by `item_id`). Every record
 * has `event: <type>` and a growing `sequence_number`; no `[DONE]`.
 */

type Json = Record<string, unknown>;

function makeResponsesUsage(usage: UsageSpec): Json {
  const wire: Json = { input_tokens: usage.input };
  const inputDetails: Json = {};
  if (usage.cachedInput !== undefined) inputDetails.cached_tokens = usage.cachedInput;
  if (usage.cacheCreationInput !== undefined) inputDetails.cache_write_tokens = usage.cacheCreationInput;
  if (Object.keys(inputDetails).length > 0) wire.input_tokens_details = inputDetails;
  wire.output_tokens = usage.output;
  if (usage.reasoning !== undefined) wire.output_tokens_details = { reasoning_tokens: usage.reasoning };
  wire.total_tokens = usage.input + usage.output;
  return wire;
}

function makeResponseObject(context: RenderContext, changes: Json): Json {
  return {
    id: makeId('resp_', context),
    object: 'response',
    created_at: context.createdAt,
    status: 'in_progress',
    background: false,
    error: null,
    incomplete_details: null,
    instructions: null,
    max_output_tokens: null,
    model: context.model,
    output: [],
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    store: true,
    temperature: 1,
    text: { format: { type: 'text' } },
    tool_choice: 'auto',
    tools: [],
    top_p: 1,
    truncation: 'disabled',
    usage: null,
    metadata: {},
    ...changes,
  };
}

interface ItemsRender {
  events: Json[];
  /** The finished output items, for the terminal response and the JSON body. */
  items: Json[];
}

function renderItems(scenario: Scenario, context: RenderContext, lastItemStatus: 'completed' | 'incomplete'): ItemsRender {
  const events: Json[] = [];
  const items: Json[] = [];
  let toolIndex = 0;
  scenario.steps.forEach((step, outputIndex) => {
    const status = outputIndex === scenario.steps.length - 1 ? lastItemStatus : 'completed';
    const base = { output_index: outputIndex };
    switch (step.type) {
      case 'reasoning': {
        const id = makeId('rs_', context, outputIndex);
        const where = { item_id: id, ...base, summary_index: 0 };
        const part = { type: 'summary_text', text: step.text };
        const item = { id, type: 'reasoning', summary: [part] };
        events.push({ type: 'response.output_item.added', ...base, item: { id, type: 'reasoning', summary: [] } });
        events.push({ type: 'response.reasoning_summary_part.added', ...where, part: { type: 'summary_text', text: '' } });
        for (const piece of splitIntoDeltas(step.text, scenario.wordsPerDelta)) {
          events.push({ type: 'response.reasoning_summary_text.delta', ...where, delta: piece });
        }
        events.push({ type: 'response.reasoning_summary_text.done', ...where, text: step.text });
        events.push({ type: 'response.reasoning_summary_part.done', ...where, part });
        events.push({ type: 'response.output_item.done', ...base, item });
        items.push(item);
        break;
      }
      case 'text': {
        const id = makeId('msg_', context, outputIndex);
        const where = { item_id: id, ...base, content_index: 0 };
        const part = { type: 'output_text', annotations: [], logprobs: [], text: step.text };
        const item = { id, type: 'message', status, content: [part], role: 'assistant' };
        events.push({ type: 'response.output_item.added', ...base, item: { ...item, status: 'in_progress', content: [] } });
        events.push({ type: 'response.content_part.added', ...where, part: { ...part, text: '' } });
        for (const piece of splitIntoDeltas(step.text, scenario.wordsPerDelta)) {
          events.push({ type: 'response.output_text.delta', ...where, delta: piece, logprobs: [] });
        }
        events.push({ type: 'response.output_text.done', ...where, text: step.text, logprobs: [] });
        events.push({ type: 'response.content_part.done', ...where, part });
        events.push({ type: 'response.output_item.done', ...base, item });
        items.push(item);
        break;
      }
      case 'tool-call': {
        const id = makeId('fc_', context, outputIndex);
        const callId = step.id ?? makeId('call_', context, toolIndex++);
        const item = { id, type: 'function_call', status, arguments: step.arguments, call_id: callId, name: step.name };
        events.push({ type: 'response.output_item.added', ...base, item: { ...item, status: 'in_progress', arguments: '' } });
        const sent = step.cutAtChar === undefined ? step.arguments : step.arguments.slice(0, step.cutAtChar);
        for (const fragment of splitJsonFragments(sent)) {
          events.push({ type: 'response.function_call_arguments.delta', item_id: id, ...base, delta: fragment });
        }
        if (step.cutAtChar !== undefined) return; // cut mid-arguments: nothing more for this item
        events.push({ type: 'response.function_call_arguments.done', item_id: id, ...base, arguments: step.arguments, name: step.name });
        events.push({ type: 'response.output_item.done', ...base, item });
        items.push(item);
        break;
      }
      default: {
        const _exhaustive: never = step;
        throw new Error(`unknown step ${String(_exhaustive)}`);
      }
    }
  });
  return { events, items };
}

/** The final `response` object: status, incomplete_details and usage (absent when the scenario has none). */
function makeFinalResponse(scenario: Scenario, context: RenderContext, items: Json[]): Json {
  const reason = scenario.ending.kind === 'finish' ? (scenario.ending.reason ?? 'completed') : 'completed';
  const incomplete = reason.startsWith('incomplete:') ? reason.slice('incomplete:'.length) : undefined;
  const response = makeResponseObject(context, {
    status: incomplete === undefined ? 'completed' : 'incomplete',
    incomplete_details: incomplete === undefined ? null : { reason: incomplete },
    output: items,
  });
  if (scenario.usage === undefined) delete response.usage;
  else response.usage = makeResponsesUsage(scenario.usage);
  return response;
}

function isIncompleteFinish(scenario: Scenario): boolean {
  return scenario.ending.kind === 'finish' && (scenario.ending.reason ?? '').startsWith('incomplete:');
}

function numberRecords(events: Json[], firstSequenceNumber: number): SseRecord[] {
  return events.map((event, offset) => {
    const { type, ...rest } = event as { type: string } & Json;
    return makeRecord(type, { type, sequence_number: firstSequenceNumber + offset, ...rest });
  });
}

export function renderResponsesStream(scenario: Scenario, context: RenderContext): RenderedStream {
  const { events, items } = renderItems(scenario, context, isIncompleteFinish(scenario) ? 'incomplete' : 'completed');
  const opening: Json[] = [
    { type: 'response.created', response: makeResponseObject(context, {}) },
    { type: 'response.in_progress', response: makeResponseObject(context, {}) },
  ];
  const content = numberRecords([...opening, ...events], 0);
  const finalResponse = makeFinalResponse(scenario, context, items);
  const terminalType = finalResponse.status === 'incomplete' ? 'response.incomplete' : 'response.completed';
  const terminal = numberRecords([{ type: terminalType, response: finalResponse }], content.length);
  return { content, terminal };
}

/**
 * `error` event (nested form of the real openai-error.1 recording; openai-node
 * also accepts the flat SDK form) and/or `response.failed` with `usage: null`.
 */
export function renderResponsesStreamError(
  error: StreamErrorSpec,
  context: RenderContext,
  firstSequenceNumber: number,
): SseRecord[] {
  const code = error.code ?? 'server_error';
  const message = error.message ?? 'The server had an error while processing your request.';
  const events: Json[] = [];
  if (error.responsesForm !== 'failed-only') {
    events.push({ type: 'error', error: { type: error.type ?? code, code, message, param: null } });
  }
  if (error.responsesForm !== 'error-only') {
    events.push({
      type: 'response.failed',
      response: makeResponseObject(context, { status: 'failed', error: { code, message }, usage: null }),
    });
  }
  return numberRecords(events, firstSequenceNumber);
}

/** Non-streaming body: the final `response` object. */
export function renderResponsesJson(scenario: Scenario, context: RenderContext): unknown {
  const { items } = renderItems(scenario, context, isIncompleteFinish(scenario) ? 'incomplete' : 'completed');
  return makeFinalResponse(scenario, context, items);
}
