import type { Protocol } from '@turnguard/core';
import { scenario, type ScenarioBuilder } from '../scenario/builder.js';
import { isStreamingRequest, planReply, type ReplyPlan } from '../wire/reply-plan.js';
import type { Fault } from './fault-spec.js';

/** A reply plan plus what only faults need: a late first record, silence before headers, an open socket. */
export interface FaultPlan extends Omit<ReplyPlan, 'end'> {
  /** Never write a header: the socket stays open until the upstream closes. */
  holdBeforeHeaders: boolean;
  /** Wait before the first body chunk only. */
  firstChunkDelayMs: number;
  /** After the last chunk: close, destroy the socket, or keep it open and silent. */
  end: 'close' | 'destroy' | 'hold';
}

const encoder = new TextEncoder();

/** The default healthy answer: a short text with usage, as every provider sends one. */
function defaultAnswer(protocol: Protocol): ScenarioBuilder<Protocol> {
  return scenario.for(protocol).text('The answer from the fault upstream.').usage({ input: 12, output: 7 });
}

/**
 * Context-length 400s as the providers send them (wire-formats §4.4; the
 * adapters' classify-*-error.ts recognise exactly these): OpenAI Chat
 * `context_length_exceeded` (dimagi/open-chat-studio#463), Responses
 * "Your input exceeds the context window" (codex `context_window_error_is_fatal`),
 * Anthropic "prompt is too long: N tokens > M maximum" (boldsoftware/exe.dev#62).
 */
function contextLengthError(protocol: Protocol): ScenarioBuilder<Protocol> {
  if (protocol === 'messages') {
    return scenario.for(protocol).httpError(400, { type: 'invalid_request_error', message: 'prompt is too long: 200251 tokens > 200000 maximum' });
  }
  const message =
    protocol === 'chat'
      ? "This model's maximum context length is 8192 tokens. However, your messages resulted in 8202 tokens. Please reduce the length of the messages."
      : 'Your input exceeds the context window of this model. Please adjust your input and try again.';
  return scenario.for(protocol).httpError(400, {
    body: { error: { message, type: 'invalid_request_error', param: protocol === 'chat' ? 'messages' : 'input', code: 'context_length_exceeded' } },
  });
}

/**
 * Azure OpenAI's content-management 400 (code `content_filter`, as the Chat
 * and Responses classifiers read it). Anthropic has no content-filter 400:
 * its refusal is a complete answer with `stop_reason: "refusal"` (fixture
 * anthropic-refusal.chunks.txt), which is what a Messages request gets.
 */
function contentFilterAnswer(protocol: Protocol): ScenarioBuilder<Protocol> {
  if (protocol === 'messages') return scenario.messages().text('I can’t help with that.').usage({ input: 12, output: 6 }).finish('refusal') as ScenarioBuilder<Protocol>;
  return scenario.for(protocol).httpError(400, {
    body: {
      error: {
        message: "The response was filtered due to the prompt triggering Azure OpenAI's content management policy.",
        type: null,
        param: 'prompt',
        code: 'content_filter',
      },
    },
  });
}

/**
 * A refused prefill (decision 0401): Anthropic 4.6+ answers the Messages
 * route with "This model does not support assistant message prefill…";
 * llama.cpp's Chat route with thinking on says "Assistant response prefill is
 * incompatible with enable_thinking."; OpenAI-compatible proxies in front of
 * Claude pass Anthropic's text on (Kilo-Org/kilocode#8260).
 */
function prefillRefusal(protocol: Protocol): ScenarioBuilder<Protocol> {
  if (protocol === 'messages') {
    return scenario.for(protocol).httpError(400, {
      type: 'invalid_request_error',
      message: 'This model does not support assistant message prefill. The conversation must end with a user message.',
    });
  }
  const message =
    protocol === 'chat'
      ? 'Assistant response prefill is incompatible with enable_thinking.'
      : 'This model does not support assistant message prefill. The conversation must end with a user message.';
  return scenario.for(protocol).httpError(400, { body: { error: { code: 400, message, type: 'invalid_request_error', param: null } } });
}

/** One undecodable record per protocol: the JSON ends mid-object, as a proxy that garbles a record sends it. */
const MALFORMED_RECORD: Record<Protocol, string> = {
  chat: 'data: {"id":"chatcmpl-broken","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"x"}\n\n',
  messages: 'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"\n\n',
  responses: 'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","output_index":0,"delta":"x"\n\n',
};

/** The last record of a complete stream is the sentinel where the protocol has one (Chat `[DONE]`, Messages `message_stop`). */
function dropSentinel(protocol: Protocol, chunks: Uint8Array[]): Uint8Array[] {
  return protocol === 'responses' ? chunks : chunks.slice(0, -1);
}

function plan(base: ReplyPlan, changes: Partial<FaultPlan> = {}): FaultPlan {
  return { ...base, holdBeforeHeaders: false, firstChunkDelayMs: 0, ...changes };
}

/** The first half of a JSON body's bytes: a non-streaming answer cut, stalled or garbled mid-body. */
function halfJsonBody(full: ReplyPlan): Uint8Array[] {
  const body = full.chunks[0] ?? new Uint8Array();
  return [body.subarray(0, Math.floor(body.byteLength / 2))];
}

/** A fault, for one request, as bytes and timings (pure apart from `planReply`'s serial ids). */
export function renderFault(fault: Fault, protocol: Protocol, requestBody: unknown, serial: number): FaultPlan {
  const answer = (builder: ScenarioBuilder<Protocol>): ReplyPlan => planReply({ scenario: builder.build(), requestBody, serial });
  if (!isStreamingRequest(requestBody) && (fault.kind === 'cut' || fault.kind === 'stall' || fault.kind === 'malformed')) {
    // A JSON answer has no records: it is cut (or stalls, or breaks off) half-way through its bytes.
    const full = answer(defaultAnswer(protocol));
    const end = fault.kind === 'stall' ? 'hold' : fault.kind === 'cut' && fault.how !== 'eof' ? 'destroy' : 'close';
    return plan(full, { chunks: halfJsonBody(full), end });
  }
  switch (fault.kind) {
    case 'answer':
      return plan(answer((fault.build ?? defaultAnswer)(protocol)));
    case 'http-error': {
      const headers: Record<string, string> = {
        ...(fault.retryAfter === undefined ? {} : { 'retry-after': fault.retryAfter }),
        ...(fault.retryAfterMs === undefined ? {} : { 'retry-after-ms': String(fault.retryAfterMs) }),
      };
      const options = { headers, ...(fault.type === undefined ? {} : { type: fault.type }), ...(fault.code === undefined ? {} : { code: fault.code }), ...(fault.message === undefined ? {} : { message: fault.message }) };
      return plan(answer(scenario.for(protocol).httpError(fault.status, options)));
    }
    case 'reset-before-headers':
      return plan(answer(defaultAnswer(protocol)), { destroyBeforeHeaders: true, chunks: [] });
    case 'no-answer':
      return plan(answer(defaultAnswer(protocol)), { holdBeforeHeaders: true, chunks: [] });
    case 'slow-first-token':
      return plan(answer(defaultAnswer(protocol)), { firstChunkDelayMs: fault.delayMs });
    case 'cut': {
      const full = answer(defaultAnswer(protocol).wordsPerDelta(1));
      // Half of a one-word-per-delta answer: well inside its text, never at a terminal record.
      const kept = fault.afterEvents ?? Math.max(1, Math.floor(full.chunks.length / 2));
      return plan(full, { chunks: full.chunks.slice(0, kept), end: fault.how === 'eof' ? 'close' : 'destroy' });
    }
    case 'stall': {
      const full = answer(defaultAnswer(protocol).wordsPerDelta(1));
      return plan(full, { chunks: full.chunks.slice(0, fault.afterEvents), end: 'hold' });
    }
    case 'malformed': {
      const full = answer(defaultAnswer(protocol).wordsPerDelta(1));
      const chunks = [...full.chunks];
      chunks.splice(fault.afterEvents, 0, encoder.encode(MALFORMED_RECORD[protocol]));
      return plan(full, { chunks });
    }
    case 'no-sentinel': {
      const full = answer(defaultAnswer(protocol));
      return plan(full, { chunks: dropSentinel(protocol, full.chunks) });
    }
    case 'context-length':
      return plan(answer(contextLengthError(protocol)));
    case 'content-filter':
      return plan(answer(contentFilterAnswer(protocol)));
    case 'prefill-refused':
      return plan(answer(prefillRefusal(protocol)));
    default: {
      const _exhaustive: never = fault;
      throw new Error(`unknown fault ${String(_exhaustive)}`);
    }
  }
}
