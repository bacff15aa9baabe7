import { TurnError } from '../errors/turn-error.js';
import type { ProtocolAdapter } from '../adapter/protocol-adapter.js';
import type { TurnResult, TurnRun } from '../turn/turn-result.js';
import type { UnifiedFinishReason } from '../types/finish-reason.js';
import type { Message } from '../types/message.js';
import type { Prompt } from '../types/prompt.js';
import type { TurnEvent } from '../types/turn-event.js';
import type { TurnSettings } from '../types/turn-settings.js';
import type { AgentLoopEvent, AgentLoopRun, RunAgentLoopOptions, SampleTurn, SampleTurnInput } from './loop-types.js';
import { runAgentLoop } from './run-agent-loop.js';

/** The "native" request of the fake adapter: the neutral prompt and settings, as sent. */
export interface FakeNative {
  prompt: Prompt;
  settings: TurnSettings;
}

export function createFakeAdapter(protocol: 'chat' | 'messages' | 'responses' = 'messages'): ProtocolAdapter<FakeNative> {
  return {
    protocol,
    buildRequest: (prompt: Prompt, settings: TurnSettings) => structuredClone({ prompt, settings }),
  } as unknown as ProtocolAdapter<FakeNative>;
}

/** One scripted model call. */
export interface FakeReply {
  events: TurnEvent[];
  /** How the call ends: a finish reason (terminal frame seen) or an error. */
  end: UnifiedFinishReason | TurnError;
  /** Runs before the event at this index is handed over (e.g. to abort the loop). */
  beforeEvent?: { index: number; run: () => void };
}

export const text = (id: string, value: string): TurnEvent[] => [
  { type: 'text-start', id },
  { type: 'text-delta', id, delta: value },
  { type: 'text-end', id },
];

export const reasoning = (id: string, value: string, signature?: string): TurnEvent[] => [
  { type: 'reasoning-start', id },
  { type: 'reasoning-delta', id, delta: value },
  signature === undefined ? { type: 'reasoning-end', id } : { type: 'reasoning-end', id, signature },
];

export const toolCall = (toolCallId: string, toolName: string, input: string): TurnEvent[] => [
  { type: 'tool-call-start', toolCallId, toolName },
  { type: 'tool-call-delta', toolCallId, delta: input },
  { type: 'tool-call-end', toolCallId, toolName, input },
];

function buildResult(end: FakeReply['end'], error: TurnError | undefined): TurnResult {
  const usage = { inputTokens: undefined, cachedInputTokens: undefined, cacheCreationInputTokens: undefined, outputTokens: undefined, reasoningTokens: undefined, totalTokens: undefined, complete: false, segmentCount: 1, segmentsWithUsage: 0 };
  const finishReason = error === undefined && typeof end === 'string' ? { unified: end, raw: end } : undefined;
  return { outcome: error === undefined ? 'ok' : 'error', error, finishReason, usage, segments: [], recovery: undefined, recoverySkipped: undefined, warnings: [], durationMs: 0 };
}

/** A TurnRun that replays a script and honours the abort signal like runTurn does (ABORTED, no more events). */
function createFakeRun(reply: FakeReply, input: SampleTurnInput<FakeNative>): TurnRun {
  let resolveResult!: (result: TurnResult) => void;
  const settled = new Promise<TurnResult>((resolve) => {
    resolveResult = resolve;
  });
  async function* iterate(): AsyncGenerator<TurnEvent> {
    for (let index = 0; index < reply.events.length; index += 1) {
      if (reply.beforeEvent?.index === index) reply.beforeEvent.run();
      if (input.signal.aborted) break;
      yield reply.events[index]!;
    }
    if (input.signal.aborted) {
      const error = new TurnError({ kind: 'aborted', message: 'aborted', details: { abortReason: String(input.signal.reason) } });
      yield { type: 'error', error };
      resolveResult(buildResult(reply.end, error));
      return;
    }
    const error = typeof reply.end === 'string' ? undefined : reply.end;
    yield error === undefined ? { type: 'finish', finishReason: { unified: reply.end as UnifiedFinishReason, raw: String(reply.end) } } : { type: 'error', error };
    resolveResult(buildResult(reply.end, error));
  }
  let started = false;
  return {
    [Symbol.asyncIterator]: () => {
      started = true;
      return iterate();
    },
    result: settled.then((value) => {
      if (!started) throw new Error('fake run: result awaited without iterating');
      return value;
    }),
  };
}

export interface FakeSampler {
  sampleTurn: SampleTurn<FakeNative>;
  /** Each request as the loop built it. */
  requests: FakeNative[];
  /** The retry options each call got. */
  retries: SampleTurnInput<FakeNative>['retry'][];
}

/** Replays replies in order; a call past the script gets `whenEmpty`, or fails the test loudly. */
export function createFakeSampler(replies: FakeReply[], whenEmpty?: FakeReply): FakeSampler {
  const queue = [...replies];
  const requests: FakeNative[] = [];
  const retries: SampleTurnInput<FakeNative>['retry'][] = [];
  return {
    requests,
    retries,
    sampleTurn: (input) => {
      requests.push(input.request);
      retries.push(input.retry);
      const reply = queue.shift() ?? whenEmpty;
      if (reply === undefined) throw new Error(`fake sampler: unexpected request #${requests.length}`);
      return createFakeRun(reply, input);
    },
  };
}

export async function collectLoopEvents(run: AsyncIterable<AgentLoopEvent>): Promise<AgentLoopEvent[]> {
  const events: AgentLoopEvent[] = [];
  for await (const event of run) events.push(event);
  return events;
}

export const userPrompt = (textValue = 'Do the task.'): Prompt => ({
  messages: [{ role: 'user', content: [{ type: 'text', text: textValue }] }],
});

/** Texts of the meta messages in a request. */
export const metaTexts = (messages: readonly Message[]): string[] =>
  messages.filter((message) => message.isMeta === true).map((message) => message.content.map((part) => ('text' in part ? part.text : '')).join(''));

/**
 * Runs the agent loop over a fake sampler with the settings every loop test
 * shares (fake adapter, one user prompt, model-a with an 8000-token cap,
 * sequential ids); `options` overrides any of them.
 */
export function startFakeLoop(
  replies: FakeReply[],
  options: Partial<RunAgentLoopOptions<FakeNative>> = {},
  whenEmpty?: FakeReply,
): { run: AgentLoopRun; sampler: FakeSampler } {
  const sampler = createFakeSampler(replies, whenEmpty);
  let id = 0;
  const run = runAgentLoop<FakeNative>({
    adapter: createFakeAdapter(),
    prompt: userPrompt(),
    settings: { model: 'model-a', stream: true },
    target: { baseUrl: 'https://unused.test' },
    sampleTurn: sampler.sampleTurn,
    createId: () => `id-${++id}`,
    ...options,
  });
  return { run, sampler };
}
