import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import type { Protocol } from '@turnguard/core';
import { fault, scenario, startFaultUpstream, type Fault, type FaultContext, type FaultUpstream } from '@turnguard/testkit';
import { createGateway, type Gateway, type GatewayOptions } from '../create-gateway.js';
import { RecordingSink } from './gateway-harness.test-helper.js';

export const PROTOCOLS = ['chat', 'messages', 'responses'] as const;
export const MODES = ['stream', 'json'] as const;
export type Mode = (typeof MODES)[number];

/**
 * The limits a catalogue run uses: short ones in `npm test` (fast, the same
 * rules), the gateway's own defaults in `npm run test:failover-defaults`.
 * Every time bound and Retry-After of the catalogue is read from here.
 */
export interface CatalogueSettings {
  name: 'short' | 'defaults';
  /** Config laid over the gateway's defaults (none for `defaults`). */
  gateway: GatewayOptions;
  headersMs: number;
  firstTokenMs: number;
  stallBeforeMs: number;
  stallAfterMs: number;
  /** A Retry-After the budget honours, and one longer than it waits for. */
  retryAfterMs: number;
  retryAfterTooLongMs: number;
  /** Attempts on one target without a fallback (R11.3: the budget's per-target cap). */
  attemptsWithoutFallback: number;
  /** How long a slow first token takes (longer than `firstTokenMs`). */
  slowFirstTokenMs: number;
  /** The longest a turn of the catalogue may take before it is answered or ends. */
  turnBoundMs: number;
  /** The shortest wait before a retry without Retry-After (the budget's first backoff, jitter only adds). */
  firstBackoffMs: number;
  /** A turn that fails over or ends at once (no backoff, no limit waited out) ends sooner than this. */
  atOnceMs: number;
}

export const SHORT_SETTINGS: CatalogueSettings = {
  name: 'short',
  gateway: {
    // Before-output twice the after-output stall, as in the defaults: a row that hits the wrong one fails its bound.
    timeLimits: { connectMs: 2000, responseHeadersMs: 400, firstTokenMs: 400, stallBeforeOutputMs: 800, stallAfterOutputMs: 400 },
    retry: { initialDelayMs: 20, maxDelayMs: 80, retryWindowMs: 10_000, maxServerWaitMs: 600, burstWindowMs: 0 },
  },
  headersMs: 400,
  firstTokenMs: 400,
  stallBeforeMs: 800,
  stallAfterMs: 400,
  retryAfterMs: 250,
  retryAfterTooLongMs: 5000,
  attemptsWithoutFallback: 5,
  slowFirstTokenMs: 3000,
  turnBoundMs: 4000,
  firstBackoffMs: 20,
  atOnceMs: 1000,
};

/** The gateway's defaults (decisions 0400, 0406): the run that shows what a user gets out of the box. */
export const DEFAULT_SETTINGS: CatalogueSettings = {
  name: 'defaults',
  gateway: {},
  headersMs: 60_000,
  firstTokenMs: 120_000,
  stallBeforeMs: 120_000,
  stallAfterMs: 60_000,
  retryAfterMs: 2000,
  retryAfterTooLongMs: 30_000,
  attemptsWithoutFallback: 5,
  slowFirstTokenMs: 130_000,
  // R11.3: a persistent 429/5xx ends well inside 30 s.
  turnBoundMs: 30_000,
  firstBackoffMs: 1000,
  // Well under the limits and Retry-Afters this run waits out (30–120 s): its rows run side by side,
  // a hundred turns at once on a small machine, so a turn that waits for nothing still takes a second or two.
  atOnceMs: 4000,
};

export function catalogueSettings(): CatalogueSettings {
  return process.env.TURNGUARD_FAILOVER_LIMITS === 'defaults' ? DEFAULT_SETTINGS : SHORT_SETTINGS;
}

/** What the client's official SDK gave its caller: the text it read, the model named, why it ended, or the error it raised. */
export interface ClientOutcome {
  text: string;
  model: string | undefined;
  /** Chat's `finish_reason`, Messages' `stop_reason`, Responses' `status`. */
  finish: string | null | undefined;
  error: { status: number | undefined; type: string | undefined; message: string } | undefined;
  ms: number;
}

export interface FailoverHarness {
  upstream: FaultUpstream;
  gateway: Gateway;
  sink: RecordingSink;
  /** Moves the gateway's and the upstream's clock forward without waiting (circuits, "down for a minute"). */
  advance(ms: number): void;
  now(): number;
  ask(protocol: Protocol, mode: Mode, model: string, options?: { fallbacks?: readonly string[] }): Promise<ClientOutcome>;
  close(): Promise<void>;
}

/** A healthy answer that says who gave it. */
export function answerFrom(name: string) {
  return fault.ok((protocol) => scenario.for(protocol).text(`Answer from ${name}.`).usage({ input: 10, output: 4 }));
}

/**
 * A gateway over one fault upstream (the simple form: every protocol's
 * upstream is the fault upstream), with the official SDK clients of each
 * protocol pointed at it, their own retries off so every retry seen is the
 * gateway's. Its clock and the upstream's are one controllable clock: real
 * time plus an offset the test moves.
 */
export async function startFailoverHarness(
  settings: CatalogueSettings,
  withUpstream: GatewayOptions | ((upstream: FaultUpstream) => GatewayOptions) = {},
): Promise<FailoverHarness> {
  let offset = 0;
  const now = (): number => Date.now() + offset;
  const upstream = await startFaultUpstream({ now });
  // Named upstreams of the routing config point at the fault upstream, whose port is known only now.
  const options = typeof withUpstream === 'function' ? withUpstream(upstream) : withUpstream;
  const sink = new RecordingSink();
  const gateway = createGateway({
    port: 0,
    upstreams: { chat: upstream.baseUrl, responses: upstream.baseUrl, messages: upstream.url },
    env: { OPENAI_API_KEY: 'sk-openai-test', ANTHROPIC_API_KEY: 'sk-ant-test' },
    stats: sink,
    now,
    ...settings.gateway,
    ...options,
  });
  await gateway.listen();
  const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: 'sk-openai-test', maxRetries: 0 });
  const anthropic = new Anthropic({ baseURL: gateway.url!, apiKey: 'sk-ant-test', maxRetries: 0 });
  return {
    upstream,
    gateway,
    sink,
    advance: (ms) => void (offset += ms),
    now,
    ask: (protocol, mode, model, askOptions = {}) => askThroughSdk({ openai, anthropic }, protocol, mode, model, askOptions.fallbacks),
    async close() {
      await gateway.close();
      await upstream.close();
    },
  };
}

const MESSAGES = [{ role: 'user' as const, content: 'hi' }];

async function askThroughSdk(
  clients: { openai: OpenAI; anthropic: Anthropic },
  protocol: Protocol,
  mode: Mode,
  model: string,
  fallbacks: readonly string[] | undefined,
): Promise<ClientOutcome> {
  const headers: Record<string, string> = fallbacks === undefined ? {} : { 'x-turnguard-fallbacks': JSON.stringify(fallbacks) };
  const started = performance.now();
  const seen: Seen = { text: '', model: undefined, finish: undefined };
  let error: ClientOutcome['error'];
  try {
    await readAnswer(clients, protocol, mode, model, headers, seen);
  } catch (thrown) {
    const failure = thrown as { status?: number; error?: { type?: string; error?: { type?: string } }; type?: string; message?: string };
    error = { status: failure.status, type: failure.error?.error?.type ?? failure.error?.type ?? failure.type, message: String(failure.message) };
  }
  return { text: seen.text, model: seen.model, finish: seen.finish, error, ms: performance.now() - started };
}

type Seen = Pick<ClientOutcome, 'text' | 'model' | 'finish'>;

/** Each SDK's own stream helper validates the stream as it accumulates it (R8.7): an invalid one throws. */
async function readAnswer(
  { openai, anthropic }: { openai: OpenAI; anthropic: Anthropic },
  protocol: Protocol,
  mode: Mode,
  model: string,
  headers: Record<string, string>,
  seen: Seen,
): Promise<void> {
  if (protocol === 'chat' && mode === 'stream') {
    const stream = openai.chat.completions.stream({ model, messages: MESSAGES, max_tokens: 64 }, { headers });
    for await (const chunk of stream) seen.text += chunk.choices[0]?.delta?.content ?? '';
    const completion = await stream.finalChatCompletion();
    seen.model = completion.model;
    seen.finish = completion.choices[0]?.finish_reason;
  } else if (protocol === 'chat') {
    const completion = await openai.chat.completions.create({ model, messages: MESSAGES, max_tokens: 64 }, { headers });
    seen.text = completion.choices[0]?.message.content ?? '';
    seen.model = completion.model;
    seen.finish = completion.choices[0]?.finish_reason;
  } else if (protocol === 'messages' && mode === 'stream') {
    const stream = anthropic.messages.stream({ model, messages: MESSAGES, max_tokens: 64 }, { headers });
    for await (const event of stream) if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') seen.text += event.delta.text;
    const message = await stream.finalMessage();
    seen.model = message.model;
    seen.finish = message.stop_reason;
  } else if (protocol === 'messages') {
    const message = await anthropic.messages.create({ model, messages: MESSAGES, max_tokens: 64 }, { headers });
    seen.text = message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
    seen.model = message.model;
    seen.finish = message.stop_reason;
  } else if (mode === 'stream') {
    const stream = openai.responses.stream({ model, input: 'hi', max_output_tokens: 64 }, { headers });
    for await (const event of stream) if (event.type === 'response.output_text.delta') seen.text += event.delta;
    const response = await stream.finalResponse();
    seen.model = response.model;
    seen.finish = response.status;
  } else {
    const response = await openai.responses.create({ model, input: 'hi', max_output_tokens: 64 }, { headers });
    seen.text = response.output_text;
    seen.model = response.model;
    seen.finish = response.status;
  }
}

/** Records kept of each default answer before a fault: inside the text (after output) or before it. */
export const AFTER_OUTPUT_RECORDS: Record<Protocol, number> = { chat: 3, messages: 4, responses: 6 };
export const BEFORE_OUTPUT_RECORDS: Record<Protocol, number> = { chat: 1, messages: 1, responses: 1 };
export const FULL_DEFAULT_ANSWER = 'The answer from the fault upstream.';

/**
 * What a model that continues writes (R11.6): the default answer's rest
 * after the prefill the continuation request carries as its last message
 * (Chat's string content or Messages' text parts).
 */
export function restOfDefaultAnswer(context: FaultContext): Fault {
  return fault.ok((protocol) => scenario.for(protocol).text(FULL_DEFAULT_ANSWER.slice(prefillOf(context.body).length)).usage({ input: 30, output: 5 }));
}

/** The prefill a continuation request carries: its last message's text (Chat and Messages shapes). */
export function prefillOf(body: unknown): string {
  const content = (body as { messages?: Array<{ content: unknown }> }).messages?.at(-1)?.content;
  return typeof content === 'string' ? content : Array.isArray(content) ? content.map((part: { text?: string }) => part.text ?? '').join('') : '';
}

/**
 * What a streaming client reads of the default answer (one word a record) before a fault after output:
 * `fault.cut()`'s default cut point, and `AFTER_OUTPUT_RECORDS` for a stall or a malformed record.
 */
export const TEXT_BEFORE_CUT: Record<Protocol, string> = { chat: 'The answer from the', messages: 'The answer from', responses: 'The answer from' };
export const TEXT_BEFORE_FAULT: Record<Protocol, string> = { chat: 'The answer', messages: 'The', responses: 'The answer' };
