import { randomUUID } from 'node:crypto';
import { isRecord, type Json } from './json-record.js';

/** Where openai-node's accumulator is known to be wrong for a choice: the gateway's rendered content is used there. */
export interface ChatAccumulatorFlaws {
  /** A tool-call fragment with no `index` (Mistral): the SDK files it under `tool_calls["undefined"]` and drops it. */
  toolCallWithoutIndex: boolean;
  /** `content` as typed parts (Mistral's text/thinking chunks): the SDK concatenates the array as a string. */
  typedContent: boolean;
  /** Streamed reasoning fields (`reasoning_content`, `reasoning`): the SDK's Object.assign keeps the last fragment. */
  reasoningKeys: Set<string>;
}

/**
 * openai-node's `ChatCompletionStream` accumulator, chunk by chunk, for one
 * upstream body (lib/ChatCompletionStream.js `#accumulateChatCompletion`):
 * the first chunk's top-level fields, then every later chunk with an `id`
 * assigned over them (`system_fingerprint`, `service_tier`, `usage`, a
 * provider's extra fields such as Groq's `x_groq`); per choice its extra
 * fields, `logprobs.content` / `.refusal` concatenated, and per message
 * content, refusal, audio, function_call and tool calls by `index`, other
 * delta fields assigned. `finalize` is `finalizeChatCompletion` without the
 * SDK's own helper fields (`parsed`): the `chat.completion` the SDK's
 * `finalChatCompletion()` returns — but with each logprobs token once (see
 * `#addChoice`), and `flawsOf` tells where the caller must not trust the
 * SDK's way (decision 0235).
 */
export class ChatCompletionAccumulator {
  #snapshot: Json | undefined;
  readonly #choices: Json[] = [];
  readonly #flaws = new Map<number, ChatAccumulatorFlaws>();

  /** A chunk arrived: the SDK has a snapshot to finalize. */
  get started(): boolean {
    return this.#snapshot !== undefined;
  }

  flawsOf(index: number): ChatAccumulatorFlaws | undefined {
    return this.#flaws.get(index);
  }

  add(chunk: Json): void {
    const { choices, ...rest } = chunk;
    if (this.#snapshot === undefined) this.#snapshot = rest;
    else if (chunk.id) Object.assign(this.#snapshot, rest);
    if (!Array.isArray(choices)) return;
    for (const entry of choices) if (isRecord(entry)) this.#addChoice(entry);
  }

  #addChoice(entry: Json): void {
    const { delta, finish_reason, index, logprobs = null, ...other } = entry;
    // The SDK keys choices by `index`; one without it lands on `choices["undefined"]`, which finalize never sees.
    if (typeof index !== 'number') return;
    let choice = this.#choices[index];
    // The SDK starts the choice with this chunk's logprobs object and then merges the same object into itself,
    // so the first chunk's tokens appear twice (lib/ChatCompletionStream.js): started empty, they appear once.
    if (choice === undefined) choice = this.#choices[index] = { finish_reason, index, message: {}, logprobs: isRecord(logprobs) ? null : logprobs, ...other };
    if (isRecord(logprobs)) mergeLogprobs(choice, logprobs);
    if (finish_reason) choice.finish_reason = finish_reason;
    Object.assign(choice, other);
    if (isRecord(delta)) this.#addDelta(choice.message as Json, delta, this.#flawsFor(index));
  }

  #flawsFor(index: number): ChatAccumulatorFlaws {
    let flaws = this.#flaws.get(index);
    if (flaws === undefined) this.#flaws.set(index, (flaws = { toolCallWithoutIndex: false, typedContent: false, reasoningKeys: new Set() }));
    return flaws;
  }

  #addDelta(message: Json, delta: Json, flaws: ChatAccumulatorFlaws): void {
    const { audio, content, refusal, function_call, role, tool_calls, ...rest } = delta;
    Object.assign(message, rest);
    // The decoder reads `reasoning_content ?? reasoning` (adapter-chat chat-stream-decoder.ts).
    const reasoningKey = rest.reasoning_content != null ? 'reasoning_content' : rest.reasoning != null ? 'reasoning' : undefined;
    if (reasoningKey !== undefined) flaws.reasoningKeys.add(reasoningKey);
    if (typeof refusal === 'string' && refusal !== '') message.refusal = (typeof message.refusal === 'string' ? message.refusal : '') + refusal;
    if (role) message.role = role;
    if (isRecord(audio)) addAudio(message, audio);
    if (isRecord(function_call)) addFunctionCall(message, function_call);
    if (Array.isArray(content)) flaws.typedContent = true;
    else if (typeof content === 'string' && content !== '') message.content = (typeof message.content === 'string' ? message.content : '') + content;
    if (Array.isArray(tool_calls)) addToolCalls(message, tool_calls, flaws);
  }

  /** `finalizeChatCompletion`; where the SDK would throw (no finish_reason, no role) the gateway's values fill in. */
  finalize(fallbackFinishReason: unknown): Json {
    const { id, choices: _choices, created, model, system_fingerprint, ...rest } = this.#snapshot ?? {};
    return {
      ...rest,
      id,
      choices: this.#choices.filter((choice) => choice !== undefined).map((choice) => finalizeChoice(choice, fallbackFinishReason)),
      created,
      model,
      object: 'chat.completion',
      ...(system_fingerprint ? { system_fingerprint } : {}),
    };
  }
}

function mergeLogprobs(choice: Json, logprobs: Json): void {
  if (!isRecord(choice.logprobs)) {
    choice.logprobs = { ...logprobs };
    return;
  }
  const { content, refusal, ...rest } = logprobs;
  const merged = choice.logprobs;
  Object.assign(merged, rest);
  if (Array.isArray(content)) appendAll((merged.content ??= []) as unknown[], content);
  if (Array.isArray(refusal)) appendAll((merged.refusal ??= []) as unknown[], refusal);
}

/** A loop, not push(...parts): a long chunk's token list must not hit the argument limit. */
function appendAll(target: unknown[], parts: readonly unknown[]): void {
  for (let at = 0, count = parts.length; at < count; at += 1) target.push(parts[at]);
}

function addAudio(message: Json, audio: Json): void {
  const snapshot = (message.audio ??= {}) as Json;
  if (audio.id != null) snapshot.id = audio.id;
  if (audio.data != null) snapshot.data = String(snapshot.data ?? '') + String(audio.data);
  if (audio.transcript != null) snapshot.transcript = String(snapshot.transcript ?? '') + String(audio.transcript);
  if (audio.expires_at != null) snapshot.expires_at = audio.expires_at;
}

function addFunctionCall(message: Json, call: Json): void {
  if (!isRecord(message.function_call)) {
    message.function_call = call;
    return;
  }
  const snapshot = message.function_call;
  if (call.name) snapshot.name = call.name;
  if (call.arguments) snapshot.arguments = String(snapshot.arguments ?? '') + String(call.arguments);
}

function addToolCalls(message: Json, fragments: unknown[], flaws: ChatAccumulatorFlaws): void {
  const calls = (message.tool_calls ??= []) as Json[];
  for (const fragment of fragments) {
    if (!isRecord(fragment)) continue;
    const { index, id, type, function: fn, ...rest } = fragment;
    if (typeof index !== 'number') {
      flaws.toolCallWithoutIndex = true;
      continue;
    }
    const call = (calls[index] ??= {});
    Object.assign(call, rest);
    if (id) call.id = id;
    if (type) call.type = type;
    if (!isRecord(fn)) continue;
    const target = (call.function ??= { name: fn.name ?? '', arguments: '' }) as Json;
    if (fn.name) target.name = fn.name;
    if (typeof fn.arguments === 'string') target.arguments = String(target.arguments) + fn.arguments;
  }
}

function finalizeChoice(choice: Json, fallbackFinishReason: unknown): Json {
  const { message, finish_reason, index, logprobs, ...choiceRest } = choice;
  const { content = null, function_call, tool_calls, audio, ...messageRest } = message as Json;
  const finishReason = finish_reason ?? fallbackFinishReason;
  const role = messageRest.role ?? 'assistant';
  const refusal = messageRest.refusal ?? null;
  const audioResponse = audio === undefined ? {} : { audio };
  if (isRecord(function_call)) {
    const call = { arguments: function_call.arguments ?? '', name: function_call.name ?? '' };
    return { ...choiceRest, message: { ...audioResponse, content, function_call: call, role, refusal }, finish_reason: finishReason, index, logprobs };
  }
  if (Array.isArray(tool_calls)) {
    return {
      ...choiceRest,
      index,
      finish_reason: finishReason,
      logprobs,
      message: { ...messageRest, ...audioResponse, role, content, refusal, tool_calls: tool_calls.map(finalizeToolCall) },
    };
  }
  return { ...choiceRest, message: { ...messageRest, ...audioResponse, content, role, refusal }, finish_reason: finishReason, index, logprobs };
}

function finalizeToolCall(call: Json): Json {
  const { function: fn, type, id, ...rest } = call;
  const { arguments: args, name, ...fnRest } = isRecord(fn) ? fn : {};
  // The SDK throws on a missing type, name or arguments; a missing id becomes `call_<uuid>` as there.
  return { ...rest, id: id || `call_${randomUUID()}`, type: type ?? 'function', function: { ...fnRest, name: name ?? '', arguments: args ?? '' } };
}
