import type { Message, Prompt, TurnSettings } from '@turnguard/core';
import type { ResponseCreateParams } from 'openai/resources/responses/responses';
import { pickUnknownFields, type JsonObject } from './native-json.js';
import { parseResponsesInput } from './parse-responses-input.js';
import { parseResponsesToolChoice, parseResponsesTools } from './prepare-responses-tools.js';
import { buildProviderFields } from './responses-shape.js';

const MODELLED_TOP_LEVEL_KEYS = new Set([
  'model',
  'instructions',
  'input',
  'tools',
  'tool_choice',
  'max_output_tokens',
  'stream',
]);

/**
 * A Responses request body → neutral prompt + settings, for the gateway (R7.1).
 * Lossless: a modelled field whose value has an unexpected shape (`instructions`
 * as an item list, `max_output_tokens: null`, `stream: false`, an empty
 * `input` list, a hosted `tool_choice` …) stays verbatim in
 * `settings.providerFields`, like every field we do not model (`store`,
 * `include`, `reasoning`, `text`, `previous_response_id`, `metadata`…).
 */
export function parseResponsesRequest(native: ResponseCreateParams): { prompt: Prompt; settings: TurnSettings } {
  const body = native as unknown as JsonObject;
  const providerFields = pickUnknownFields(body, MODELLED_TOP_LEVEL_KEYS);
  const keepVerbatim = (key: string): void => {
    if (key in body) providerFields[key] = body[key];
  };

  const messages: Message[] = [];
  if (typeof body.instructions === 'string') {
    messages.push({
      role: 'system',
      content: [{ type: 'text', text: body.instructions }],
      providerFields: buildProviderFields({}, { placement: 'instructions' }),
    });
  } else keepVerbatim('instructions');

  if (typeof body.input === 'string') {
    messages.push({
      role: 'user',
      content: [{ type: 'text', text: body.input }],
      providerFields: buildProviderFields({}, { inputAsString: true }),
    });
  } else if (Array.isArray(body.input) && body.input.length > 0) {
    messages.push(...parseResponsesInput(body.input));
  } else keepVerbatim('input');

  const tools = Array.isArray(body.tools) ? parseResponsesTools(body.tools) : undefined;
  if (tools === undefined) keepVerbatim('tools');
  const toolChoice = parseResponsesToolChoice(body.tool_choice);
  if (toolChoice === undefined) keepVerbatim('tool_choice');
  const maxOutputTokens = typeof body.max_output_tokens === 'number' ? body.max_output_tokens : undefined;
  if (maxOutputTokens === undefined) keepVerbatim('max_output_tokens');
  const stream = body.stream === true;
  if (!stream) keepVerbatim('stream');
  const model = typeof body.model === 'string' ? body.model : '';
  if (typeof body.model !== 'string') keepVerbatim('model');

  const settings: TurnSettings = {
    model,
    stream,
    ...(maxOutputTokens !== undefined ? { maxOutputTokens } : {}),
    ...(tools !== undefined ? { tools } : {}),
    ...(toolChoice !== undefined ? { toolChoice } : {}),
    providerFields,
  };
  return { prompt: { messages }, settings };
}

/** Reads `input` of a native body as an item list (a plain string is one user message). */
export function readInputItems(native: ResponseCreateParams): unknown[] {
  const input = (native as unknown as JsonObject).input;
  if (typeof input === 'string') return [{ role: 'user', content: input }];
  return Array.isArray(input) ? input : [];
}

