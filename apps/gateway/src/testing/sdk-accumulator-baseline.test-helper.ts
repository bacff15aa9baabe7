type Json = Record<string, unknown>;

const isRecord = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Fields the SDKs' helpers add themselves and no upstream sends (`output_text`, the parse helpers' fields). */
const HELPER_FIELDS = new Set(['output_text', 'parsed', 'output_parsed', 'parsed_arguments', 'parsed_output']);

/** A value as plain JSON, without the SDKs' helper fields (and undefined vs absent normalised away). */
export function withoutHelperFields(value: unknown): Json {
  return JSON.parse(JSON.stringify(value, (key, field: unknown) => (HELPER_FIELDS.has(key) ? undefined : field))) as Json;
}

/**
 * What the gateway's non-streaming Chat body must equal: openai-node's
 * `finalChatCompletion()` for the same chunks, with the accumulator's known
 * faults replaced by values computed here from the chunks themselves
 * (decision 0235):
 * - `logprobs.content` / `.refusal`: the SDK repeats the first chunk's
 *   tokens (it merges that chunk's object into itself); each token once.
 * - streamed reasoning (`reasoning_content`, `reasoning`): the SDK's
 *   Object.assign keeps the last fragment; the fragments joined.
 * - tool-call fragments with no `index` (Mistral): the SDK drops them; each is
 *   one whole call.
 * - `obfuscation`: stream-only padding the SDK keeps; no non-streaming body has it.
 */
export function chatBaseline(sdkCompletion: unknown, chunks: readonly Json[]): Json {
  const expected = withoutHelperFields(sdkCompletion);
  delete expected.obfuscation;
  for (const choice of expected.choices as Json[]) {
    const index = choice.index as number;
    const entries = chunks.flatMap((chunk) => (Array.isArray(chunk.choices) ? (chunk.choices as Json[]).filter((entry) => entry.index === index) : []));
    joinLogprobsOnce(choice, entries);
    if (index === 0) fixChoiceZero(choice.message as Json, entries);
  }
  return expected;
}

function joinLogprobsOnce(choice: Json, entries: readonly Json[]): void {
  const withLogprobs = entries.map((entry) => entry.logprobs).filter(isRecord);
  if (withLogprobs.length === 0) return;
  const logprobs = choice.logprobs as Json;
  for (const key of ['content', 'refusal']) {
    const parts = withLogprobs.flatMap((entry) => (Array.isArray(entry[key]) ? (entry[key] as unknown[]) : []));
    if (parts.length > 0) logprobs[key] = parts;
  }
}

function fixChoiceZero(message: Json, entries: readonly Json[]): void {
  const deltas = entries.map((entry) => entry.delta).filter(isRecord);
  for (const key of ['reasoning_content', 'reasoning']) {
    const fragments = deltas.filter((delta) => (key === 'reasoning' ? delta.reasoning_content == null && delta.reasoning != null : delta.reasoning_content != null));
    if (fragments.length > 0) message[key] = fragments.map((delta) => (typeof delta[key] === 'string' ? delta[key] : '')).join('');
  }
  const whole = deltas.flatMap((delta) => (Array.isArray(delta.tool_calls) ? (delta.tool_calls as Json[]) : [])).filter((call) => typeof call.index !== 'number');
  if (whole.length > 0) {
    const calls = whole.map((call) => ({ id: call.id, type: call.type ?? 'function', function: call.function }));
    message.tool_calls = JSON.parse(JSON.stringify(calls)) as unknown;
  }
}
