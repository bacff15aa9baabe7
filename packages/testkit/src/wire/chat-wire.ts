import type { Scenario, StreamErrorSpec, UsageSpec } from '../scenario/scenario.js';
import { splitIntoDeltas, splitJsonFragments } from '../scenario/text-pieces.js';
import { makeId, makeRecord, type RenderContext, type RenderedStream, type SseRecord } from './sse.js';

/**
 * Chat Completions wire, modelled on real recordings: vercel/ai
 * `openai-text.chunks.txt` (role chunk, content deltas, finish chunk, usage
 * chunk with `choices: []`, `[DONE]`) and `deepseek-reasoning.chunks.txt`
 * (`reasoning_content` deltas with `content: null`). No `event:` lines.
 */

function makeChatUsage(usage: UsageSpec): Record<string, unknown> {
  const wire: Record<string, unknown> = {
    prompt_tokens: usage.input,
    completion_tokens: usage.output,
    total_tokens: usage.input + usage.output,
  };
  const promptDetails: Record<string, number> = {};
  if (usage.cachedInput !== undefined) promptDetails.cached_tokens = usage.cachedInput;
  if (usage.cacheCreationInput !== undefined) promptDetails.cache_write_tokens = usage.cacheCreationInput;
  if (Object.keys(promptDetails).length > 0) wire.prompt_tokens_details = promptDetails;
  if (usage.reasoning !== undefined) wire.completion_tokens_details = { reasoning_tokens: usage.reasoning };
  return wire;
}

function getNaturalChatFinish(scenario: Scenario): string {
  return scenario.steps.some((step) => step.type === 'tool-call') ? 'tool_calls' : 'stop';
}

function makeToolCallId(context: RenderContext, index: number, given: string | undefined): string {
  return given ?? makeId('call_', context, index);
}

export function renderChatStream(scenario: Scenario, context: RenderContext): RenderedStream {
  const reasoningField = scenario.chatDialect.reasoningField;
  const hasReasoning = scenario.steps.some((step) => step.type === 'reasoning');
  const id = makeId('chatcmpl-', context);
  // With usage reporting on, OpenAI puts `"usage": null` on every chunk but the usage chunk.
  const usageNull: Record<string, unknown> = scenario.usage === undefined ? {} : { usage: null };
  const makeChunk = (delta: Record<string, unknown>, finishReason: string | null = null, extra: Record<string, unknown> = usageNull): SseRecord =>
    makeRecord(undefined, {
      id,
      object: 'chat.completion.chunk',
      created: context.createdAt,
      model: context.model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
      ...extra,
    });

  const firstIsReasoning = scenario.steps[0]?.type === 'reasoning';
  const content: SseRecord[] = [
    makeChunk(
      firstIsReasoning
        ? { role: 'assistant', content: null, [reasoningField]: '' }
        : { role: 'assistant', content: '', refusal: null },
    ),
  ];
  let toolIndex = 0;
  for (const step of scenario.steps) {
    switch (step.type) {
      case 'reasoning':
        for (const piece of splitIntoDeltas(step.text, scenario.wordsPerDelta)) {
          content.push(makeChunk({ content: null, [reasoningField]: piece }));
        }
        break;
      case 'text':
        for (const piece of splitIntoDeltas(step.text, scenario.wordsPerDelta)) {
          content.push(makeChunk(hasReasoning ? { content: piece, [reasoningField]: null } : { content: piece }));
        }
        break;
      case 'tool-call': {
        const index = toolIndex++;
        const callId = makeToolCallId(context, index, step.id);
        content.push(
          makeChunk({
            ...(index === 0 ? { content: null } : {}),
            tool_calls: [{ index, id: callId, type: 'function', function: { name: step.name, arguments: '' } }],
          }),
        );
        const sent = step.cutAtChar === undefined ? step.arguments : step.arguments.slice(0, step.cutAtChar);
        for (const fragment of splitJsonFragments(sent)) {
          content.push(makeChunk({ tool_calls: [{ index, function: { arguments: fragment } }] }));
        }
        break;
      }
      default: {
        const _exhaustive: never = step;
        throw new Error(`unknown step ${String(_exhaustive)}`);
      }
    }
  }

  const finishReason = scenario.ending.kind === 'finish' ? scenario.ending.reason : undefined;
  const terminal: SseRecord[] = [];
  const usage = scenario.usage === undefined ? undefined : makeChatUsage(scenario.usage);
  const onFinishChunk = usage !== undefined && scenario.chatDialect.usagePlacement === 'finish-chunk';
  terminal.push(makeChunk({}, finishReason ?? getNaturalChatFinish(scenario), onFinishChunk ? { usage } : usageNull));
  if (usage !== undefined && !onFinishChunk) {
    terminal.push(
      makeRecord(undefined, {
        id,
        object: 'chat.completion.chunk',
        created: context.createdAt,
        model: context.model,
        choices: [],
        usage,
      }),
    );
  }
  terminal.push({ event: undefined, data: '[DONE]' });
  return { content, terminal };
}

/** `data: {"error":{…}}` after HTTP 200 (vercel/ai openai-chat-language-model.test.ts). */
export function renderChatStreamError(error: StreamErrorSpec): SseRecord[] {
  return [
    makeRecord(undefined, {
      error: {
        message:
          error.message ??
          'The server had an error processing your request. Sorry about that! You can retry your request, or contact us through our help center at help.openai.com if you keep seeing this error.',
        type: error.type ?? 'server_error',
        param: null,
        code: error.code ?? null,
      },
    }),
  ];
}

/** Non-streaming `chat.completion` body (shape of fixtures/chat/json/openai-text.json). */
export function renderChatJson(scenario: Scenario, context: RenderContext): unknown {
  const reasoning = scenario.steps.flatMap((step) => (step.type === 'reasoning' ? [step.text] : [])).join('');
  const text = scenario.steps.flatMap((step) => (step.type === 'text' ? [step.text] : [])).join('');
  const toolCalls = scenario.steps
    .flatMap((step) => (step.type === 'tool-call' ? [step] : []))
    .map((step, index) => ({
      id: makeToolCallId(context, index, step.id),
      type: 'function',
      function: { name: step.name, arguments: step.arguments },
    }));
  const message: Record<string, unknown> = { role: 'assistant', content: text === '' && toolCalls.length > 0 ? null : text, refusal: null };
  if (reasoning !== '') message[scenario.chatDialect.reasoningField] = reasoning;
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  const finishReason = scenario.ending.kind === 'finish' ? scenario.ending.reason : undefined;
  return {
    id: makeId('chatcmpl-', context),
    object: 'chat.completion',
    created: context.createdAt,
    model: context.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason ?? getNaturalChatFinish(scenario) }],
    ...(scenario.usage === undefined ? {} : { usage: makeChatUsage(scenario.usage) }),
  };
}
