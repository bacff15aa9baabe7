import { ChatCompletionAccumulator, type ChatAccumulatorFlaws } from '../assemble/accumulate-chat-completion.js';
import { SseRecordCapture, type SseRecordHandler } from './sse-record-capture.js';
import { isRecord, parseJsonRecord, type Json } from '../assemble/json-record.js';

/**
 * Chat JSON as openai-node's `finalChatCompletion()` builds it from the same
 * upstream stream (decision 0235): every chunk of the last upstream body goes
 * through the SDK's accumulator (ChatCompletionAccumulator), so
 * `system_fingerprint`, `service_tier`, `logprobs`, `refusal`, annotations,
 * the upstream's `usage` with its details and a provider's extra fields
 * (Groq's `x_groq`) reach the client. Only the last body is kept: an earlier
 * one was retried or is segment 1 of a recovery.
 */
export class ChatCompletionCapture extends SseRecordCapture {
  constructor(onDroppedAfterEnd: () => void = () => undefined) {
    super('chat', onDroppedAfterEnd);
  }

  #body: ChatCompletionAccumulator | undefined;

  protected startBody(): SseRecordHandler {
    const body = new ChatCompletionAccumulator();
    let done = false;
    this.#body = body;
    return (event, data) => {
      if (done || event === 'error') return;
      const text = data.trim();
      // openai-node's Stream stops at `[DONE]`, as the decoder does.
      if (text === '[DONE]') done = true;
      else addChunk(body, text);
    };
  }

  bodyFor(rendered: Json, recovered: boolean, continued = false): Json {
    const body = this.#body;
    const shown = Array.isArray(rendered.choices) && isRecord(rendered.choices[0]) ? rendered.choices[0] : undefined;
    if (body === undefined || this.broken || !body.started || shown === undefined) return rendered;
    const completion = body.finalize(shown.finish_reason);
    const choices = completion.choices as Json[];
    const choice = choices.find((entry) => entry.index === 0);
    if (choice === undefined) choices.unshift(shown);
    else useRenderedContent(choice, shown, body.flawsOf(0), recovered);
    // R11.6: the continuation's body holds only what followed the prefill; the client's text is the whole answer.
    if (continued && choice !== undefined) (choice.message as Json).content = (shown.message as Json).content;
    // R5: after a recovery the turn's usage, never segment 2's alone; a stream with no usage chunk, the turn's too.
    if ((recovered || completion.usage == null) && rendered.usage !== undefined) completion.usage = rendered.usage;
    // OpenAI pads streamed chunks (`stream_options.include_obfuscation`); a non-streaming body never has it.
    delete completion.obfuscation;
    return completion;
  }
}

function addChunk(body: ChatCompletionAccumulator, text: string): void {
  const chunk = parseJsonRecord(text);
  // An in-stream error ends the turn as an error (openai-node: any payload with a truthy `error`).
  if (chunk !== undefined && !chunk.error) body.add(chunk);
}

/**
 * Choice 0 (the one the neutral events carry) takes the gateway's rendered
 * content where the SDK's accumulation is known to be wrong — and, after a
 * recovery, the turn's reasoning (segment 1's thinking is in it) and the tool
 * calls the turn hands over (R4.5). Its text is segment 2's either way: a
 * recovered segment 1 produced no text (R4.1).
 */
function useRenderedContent(choice: Json, shown: Json, flaws: ChatAccumulatorFlaws | undefined, recovered: boolean): void {
  const message = choice.message as Json;
  const rendered = shown.message as Json;
  if (flaws?.typedContent === true) message.content = rendered.content;
  const reasoningKeys = flaws === undefined || flaws.reasoningKeys.size === 0 ? (recovered || flaws?.typedContent === true ? ['reasoning_content'] : []) : [...flaws.reasoningKeys];
  if (rendered.reasoning_content !== undefined) for (const key of reasoningKeys) message[key] = rendered.reasoning_content;
  if (recovered || flaws?.toolCallWithoutIndex === true) {
    if (rendered.tool_calls === undefined) delete message.tool_calls;
    else message.tool_calls = rendered.tool_calls;
  }
  if (recovered) choice.finish_reason = shown.finish_reason;
}
