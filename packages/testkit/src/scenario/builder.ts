import { TurnError, type Protocol } from '@turnguard/core';
import type {
  ChatDialect,
  FinishReasonOf,
  HttpErrorSpec,
  Scenario,
  ScenarioEnding,
  ScenarioStep,
  StreamErrorSpec,
  UsageSpec,
} from './scenario.js';
import { makeFillerText } from './text-pieces.js';

/** Where a cut happens: after the first K SSE records, or after the first K body bytes. */
export interface CutOptions {
  afterEvents?: number;
  afterBytes?: number;
}

export interface ToolCallOptions {
  id?: string;
  /** End the stream (EOF, no terminal frame) after this many characters of the arguments; no further steps allowed. */
  cutAtChar?: number;
}

export interface HttpErrorOptions {
  headers?: Record<string, string>;
  body?: unknown;
  type?: string;
  code?: string;
  message?: string;
}

export interface StreamErrorOptions {
  type?: string;
  code?: string;
  message?: string;
  responsesForm?: StreamErrorSpec['responsesForm'];
}

const DEFAULT_WORDS_PER_DELTA: Record<Protocol, number> = { chat: 1, messages: 3, responses: 1 };

function rejectBadInput(message: string): never {
  throw new TurnError({ kind: 'invalid_request', code: 'TESTKIT_BAD_SCENARIO', message, retryable: false });
}

function requireCount(name: string, value: number | undefined): void {
  if (value !== undefined && !(Number.isInteger(value) && value >= 0)) {
    rejectBadInput(`testkit: ${name} must be a non-negative integer, got ${String(value)}`);
  }
}

/**
 * Immutable fluent builder: every call returns a new builder, so a base
 * scenario can be shared and extended (`const base = scenario.chat().reasoning(100)`).
 */
export class ScenarioBuilder<P extends Protocol> {
  readonly #state: Scenario<P>;

  constructor(state: Scenario<P>) {
    this.#state = state;
  }

  static start<P extends Protocol>(protocol: P): ScenarioBuilder<P> {
    return new ScenarioBuilder<P>({
      protocol,
      steps: [],
      usage: undefined,
      ending: { kind: 'finish', reason: undefined },
      chunkDelayMs: 0,
      wordsPerDelta: DEFAULT_WORDS_PER_DELTA[protocol],
      headers: {},
      model: undefined,
      chatDialect: { reasoningField: 'reasoning_content', usagePlacement: 'separate-chunk' },
    });
  }

  /** Reasoning (Chat `reasoning_content`, Messages thinking block, Responses reasoning summary): given text, or N filler characters. */
  reasoning(textOrLength: string | number): ScenarioBuilder<P> {
    return this.#addStep({ type: 'reasoning', text: this.#resolveText('reasoning', textOrLength) });
  }

  /** Answer text: given text, or N filler characters. */
  text(textOrLength: string | number): ScenarioBuilder<P> {
    return this.#addStep({ type: 'text', text: this.#resolveText('text', textOrLength) });
  }

  /** A function/tool call whose arguments stream in fragments; `cutAtChar` ends the stream mid-arguments. */
  toolCall(name: string, args: string | Record<string, unknown>, options: ToolCallOptions = {}): ScenarioBuilder<P> {
    const argumentsText = typeof args === 'string' ? args : JSON.stringify(args);
    requireCount('toolCall cutAtChar', options.cutAtChar);
    if (options.cutAtChar !== undefined && options.cutAtChar > argumentsText.length) {
      rejectBadInput(`testkit: cutAtChar ${options.cutAtChar} is past the end of the arguments (${argumentsText.length})`);
    }
    const next = this.#addStep({ type: 'tool-call', id: options.id, name, arguments: argumentsText, cutAtChar: options.cutAtChar });
    if (options.cutAtChar === undefined) return next;
    return next.#withEnding({ kind: 'cut', how: 'eof', afterEvents: undefined, afterBytes: undefined });
  }

  /** Puts usage on the wire; without this call usage is absent from the wire (not zeros). */
  usage(spec: UsageSpec): ScenarioBuilder<P> {
    for (const [key, value] of Object.entries(spec)) requireCount(`usage.${key}`, value as number | undefined);
    return this.#with({ usage: { ...spec } });
  }

  /** The terminal frame with this finish reason, in the protocol's own vocabulary. Default: natural stop (tool-call stop when calls were made). */
  finish(reason: FinishReasonOf<P>): ScenarioBuilder<P> {
    return this.#withEnding({ kind: 'finish', reason });
  }

  /** The body ends cleanly without any terminal frame: after all steps, or after the first K records / bytes. */
  eof(options: CutOptions = {}): ScenarioBuilder<P> {
    return this.#withEnding(this.#cutEnding('eof', options));
  }

  /** The socket is destroyed mid-body (loopback server: real `res.socket.destroy()`; msw: imitated, see README). */
  destroySocket(options: CutOptions = {}): ScenarioBuilder<P> {
    return this.#withEnding(this.#cutEnding('destroy', options));
  }

  /** The socket is destroyed before any response header is sent. */
  destroySocketBeforeHeaders(): ScenarioBuilder<P> {
    return this.#withEnding({ kind: 'destroy-before-headers' });
  }

  /** After the steps, an in-stream error in the protocol's own shape (HTTP status stays 200). */
  streamError(options: StreamErrorOptions = {}): ScenarioBuilder<P> {
    const error: StreamErrorSpec = {
      type: options.type,
      code: options.code,
      message: options.message,
      responsesForm: options.responsesForm ?? 'error-then-failed',
    };
    return this.#withEnding({ kind: 'stream-error', error });
  }

  /** An HTTP error response with the protocol's JSON error shape (or `body`) and headers such as `retry-after`. */
  httpError(status: number, options: HttpErrorOptions = {}): ScenarioBuilder<P> {
    if (!Number.isInteger(status) || status < 400 || status > 599) {
      rejectBadInput(`testkit: httpError status must be 400..599, got ${String(status)}`);
    }
    const error: HttpErrorSpec = {
      status,
      headers: { ...options.headers },
      body: options.body,
      type: options.type,
      code: options.code,
      message: options.message,
    };
    return this.#withEnding({ kind: 'http-error', error });
  }

  /** Waits this long (setTimeout, so fake timers drive it) before every body chunk. */
  delay(ms: number): ScenarioBuilder<P> {
    requireCount('delay', ms);
    return this.#with({ chunkDelayMs: ms });
  }

  /** At most this many words per text/reasoning delta. */
  wordsPerDelta(count: number): ScenarioBuilder<P> {
    requireCount('wordsPerDelta', count);
    if (count === 0) rejectBadInput('testkit: wordsPerDelta must be at least 1');
    return this.#with({ wordsPerDelta: count });
  }

  /** Extra response headers (e.g. `request-id`, rate-limit headers). */
  headers(headers: Record<string, string>): ScenarioBuilder<P> {
    return this.#with({ headers: { ...this.#state.headers, ...headers } });
  }

  /** The model name on the wire; by default the request's `model` is echoed. */
  model(model: string): ScenarioBuilder<P> {
    return this.#with({ model });
  }

  /** Chat only: OpenAI-compatible dialect (reasoning field name, usage placement). */
  chatDialect(dialect: Partial<ChatDialect>): ScenarioBuilder<P> {
    return this.#with({ chatDialect: { ...this.#state.chatDialect, ...dialect } });
  }

  build(): Scenario<P> {
    return this.#state;
  }

  #resolveText(what: string, textOrLength: string | number): string {
    if (typeof textOrLength === 'string') return textOrLength;
    requireCount(`${what} length`, textOrLength);
    return makeFillerText(textOrLength);
  }

  #cutEnding(how: 'eof' | 'destroy', options: CutOptions): ScenarioEnding {
    requireCount('afterEvents', options.afterEvents);
    requireCount('afterBytes', options.afterBytes);
    if (options.afterEvents !== undefined && options.afterBytes !== undefined) {
      rejectBadInput('testkit: give afterEvents or afterBytes, not both');
    }
    return { kind: 'cut', how, afterEvents: options.afterEvents, afterBytes: options.afterBytes };
  }

  #isCutMidToolCall(): boolean {
    return this.#state.steps.some((step) => step.type === 'tool-call' && step.cutAtChar !== undefined);
  }

  #addStep(step: ScenarioStep): ScenarioBuilder<P> {
    if (this.#isCutMidToolCall()) rejectBadInput('testkit: no step can follow a tool call cut mid-arguments');
    return this.#with({ steps: [...this.#state.steps, step] });
  }

  #withEnding(ending: ScenarioEnding): ScenarioBuilder<P> {
    if (this.#isCutMidToolCall() && ending.kind !== 'cut') {
      rejectBadInput('testkit: a tool call cut mid-arguments already ends the stream');
    }
    return this.#with({ ending });
  }

  #with(changes: Partial<Scenario<P>>): ScenarioBuilder<P> {
    return new ScenarioBuilder<P>({ ...this.#state, ...changes });
  }
}

/** Entry points: `scenario.chat()`, `scenario.messages()`, `scenario.responses()`. */
export const scenario = {
  chat: (): ScenarioBuilder<'chat'> => ScenarioBuilder.start('chat'),
  messages: (): ScenarioBuilder<'messages'> => ScenarioBuilder.start('messages'),
  responses: (): ScenarioBuilder<'responses'> => ScenarioBuilder.start('responses'),
  for: <P extends Protocol>(protocol: P): ScenarioBuilder<P> => ScenarioBuilder.start(protocol),
};

export type ScenarioInput<P extends Protocol = Protocol> = Scenario<P> | ScenarioBuilder<P>;

/** Accepts a builder or a built scenario. */
export function resolveScenario<P extends Protocol>(input: ScenarioInput<P>): Scenario<P> {
  return input instanceof ScenarioBuilder ? input.build() : input;
}
