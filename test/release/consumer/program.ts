// A user's program, typechecked against the packed tarballs (R10.2): the
// three adapters fed the user's own SDK request types, runTurn, the stats
// store as its sink, and the gateway's and probe's library entries, whose
// types reach only the testkit's msw-free entry (no DOM lib needed).
import type { ChatCompletionCreateParamsStreaming } from 'openai/resources/chat/completions';
import type { ResponseCreateParamsStreaming } from 'openai/resources/responses/responses';
import type { MessageCreateParamsStreaming } from '@anthropic-ai/sdk/resources/messages';
import { runTurn, TurnError, type TurnResult, type TurnEvent } from '@turnguard/core';
import { chatAdapter } from '@turnguard/adapter-chat';
import { messagesAdapter } from '@turnguard/adapter-messages';
import { responsesAdapter } from '@turnguard/adapter-responses';
import { createStatsStore, type StatsStore } from '@turnguard/stats';
import { createGateway, type Gateway } from '@turnguard/gateway';
import { runProbe, PROBE_SCENARIOS } from '@turnguard/probe';
import { scenario, startLoopbackUpstream } from '@turnguard/testkit/server';

const stats: StatsStore = createStatsStore({ path: '/tmp/turnguard-consumer/stats.json' });

const chatRequest: ChatCompletionCreateParamsStreaming = {
  model: 'gpt-4.1',
  stream: true,
  messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:,', detail: 'low' } }] }],
};
const messagesRequest: MessageCreateParamsStreaming = {
  model: 'claude-sonnet-4-5',
  max_tokens: 1024,
  stream: true,
  messages: [{ role: 'user', content: 'hi' }],
};
const responsesRequest: ResponseCreateParamsStreaming = { model: 'gpt-5', stream: true, input: 'hi' };

export async function runAll(signal: AbortSignal): Promise<TurnResult[]> {
  const runs = [
    runTurn({ adapter: chatAdapter, request: chatRequest, target: { baseUrl: 'http://127.0.0.1:1/v1' }, stats, signal }),
    runTurn({ adapter: messagesAdapter, request: messagesRequest, target: { baseUrl: 'http://127.0.0.1:1' }, stats, signal }),
    runTurn({ adapter: responsesAdapter, request: responsesRequest, target: { baseUrl: 'http://127.0.0.1:1/v1' }, stats, signal }),
  ];
  const results: TurnResult[] = [];
  for (const run of runs) {
    for await (const event of run) describe(event);
    const result = await run.result;
    if (result.error instanceof TurnError) console.log(result.error.code);
    results.push(result);
  }
  return results;
}

function describe(event: TurnEvent): string {
  return event.type;
}

export async function startOfflineGateway(): Promise<Gateway> {
  const gateway = createGateway({ port: 0, mock: true, statsPath: undefined });
  gateway.mockUpstream?.upstream.chat.enqueue(scenario.chat().text('Hello'));
  await gateway.listen();
  return gateway;
}

export async function probeOnce(): Promise<boolean> {
  const upstream = await startLoopbackUpstream({ name: 'consumer mock' });
  const report = await runProbe({
    scenarios: PROBE_SCENARIOS.slice(0, 1),
    protocols: ['chat'],
    target: { kind: 'mock' },
    outDir: '/tmp/turnguard-consumer/probe',
    statsFile: undefined,
    output: { write: () => undefined, isTTY: false },
    upstream,
  });
  await upstream.close();
  return report.passed;
}
