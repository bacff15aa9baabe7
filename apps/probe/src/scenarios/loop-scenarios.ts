import type { Message, Protocol } from '@turnguard/core';
import { scenario, type FinishReasonOf, type ScenarioBuilder, type ScenarioQueue } from '@turnguard/testkit/server';
import type { LoopScenario, QueueContext } from '../probe-types.js';
import { READ_FILE_TOOL } from '../run/probe-adapters.js';
import { buildAnswer } from './turn-scenarios.js';

/** Each protocol's own "stopped for the output limit" (testkit finish vocabulary). */
const OUTPUT_LIMIT_FINISH: { [P in Protocol]: FinishReasonOf<P> } = {
  chat: 'length',
  messages: 'max_tokens',
  responses: 'incomplete:max_output_tokens',
};

/** Each provider's real prompt-too-long error (as the adapters' classifiers recognise it, R7.4). */
const PROMPT_TOO_LONG_ERROR: Record<Protocol, { type?: string; code?: string; message: string }> = {
  // OpenAI Chat: code context_length_exceeded (wire-formats §4.4).
  chat: { code: 'context_length_exceeded', message: "This model's maximum context length is 8192 tokens. However, your messages resulted in 9120 tokens." },
  // Anthropic: 400 invalid_request_error "prompt is too long: A tokens > B maximum".
  messages: { type: 'invalid_request_error', message: 'prompt is too long: 210000 tokens > 200000 maximum' },
  responses: { type: 'invalid_request_error', code: 'context_length_exceeded', message: 'Your input exceeds the context window of this model.' },
};

/** Arguments no repair can save: a doubled comma is not a cut-off tail (R3.13, not R3.14). */
const MALFORMED_ARGUMENTS = '{"path": "notes.txt",, "mode": }';

function enqueue(context: QueueContext, ...replies: ScenarioBuilder<Protocol>[]): void {
  (context.upstream[context.protocol] as ScenarioQueue<Protocol>).enqueue(...replies);
}

function buildTruncatedText(context: QueueContext): ScenarioBuilder<Protocol> {
  const finish = OUTPUT_LIMIT_FINISH[context.protocol] as FinishReasonOf<Protocol>;
  return scenario.for(context.protocol).text(context.content.answer).usage({ input: 40, output: 60 }).finish(finish).delay(context.timing.chunkDelayMs);
}

/** R3.6: the probe's compact hook keeps the system message and replaces the rest with a short summary. */
async function compactConversation(context: { messages: readonly Message[] }): Promise<Message[] | undefined> {
  const system = context.messages.filter((message) => message.role === 'system');
  return [...system, { role: 'user', content: [{ type: 'text', text: 'Summary of the earlier conversation: one question about a prime.' }] }];
}

export const LOOP_SCENARIOS: readonly LoopScenario[] = [
  {
    name: 'output-truncation',
    engine: 'loop',
    summary: 'the answer stops at the output limit twice: one escalated resend, then a continuation (R3.3, R3.4)',
    runsOnRealUpstream: false,
    expected: { outcome: 'ok', physicalRequests: 3, recovered: false, retries: 0 },
    expectedTransitions: ['max_output_tokens_escalate', 'max_output_tokens_recovery'],
    queueReplies(context) {
      enqueue(context, buildTruncatedText(context), buildTruncatedText(context), buildAnswer(context.protocol, context));
    },
  },
  {
    name: 'prompt-too-long',
    engine: 'loop',
    summary: "the provider's prompt-too-long 400 is withheld, the compact hook shortens the conversation, then an answer (R3.2, R3.6)",
    runsOnRealUpstream: false,
    expected: { outcome: 'ok', physicalRequests: 2, recovered: false, retries: 0 },
    expectedTransitions: ['reactive_compact_retry'],
    compact: compactConversation,
    queueReplies(context) {
      enqueue(context, scenario.for(context.protocol).httpError(400, PROMPT_TOO_LONG_ERROR[context.protocol]), buildAnswer(context.protocol, context));
    },
  },
  {
    name: 'malformed-tool-args',
    engine: 'loop',
    summary: 'a tool call with unparseable arguments becomes an error tool result for the model, never a crash (R3.12, R3.13)',
    runsOnRealUpstream: false,
    expected: { outcome: 'ok', physicalRequests: 2, recovered: false, retries: 0, toolErrors: 1 },
    expectedTransitions: ['next_turn'],
    settings: { tools: [READ_FILE_TOOL], toolChoice: 'auto' },
    toolHandlers: {
      read_file: async () => 'The probe workspace has no files.',
    },
    queueReplies(context) {
      enqueue(
        context,
        scenario.for(context.protocol).toolCall(READ_FILE_TOOL.name, MALFORMED_ARGUMENTS).delay(context.timing.chunkDelayMs),
        buildAnswer(context.protocol, context),
      );
    },
  },
];
