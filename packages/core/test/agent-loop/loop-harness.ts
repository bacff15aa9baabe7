import { chatAdapter } from '@turnguard/adapter-chat';
import { DEFAULT_MAX_TOKENS, messagesAdapter } from '@turnguard/adapter-messages';
import { responsesAdapter } from '@turnguard/adapter-responses';
import { createMockUpstream, scenario, type MockUpstream, type ScenarioBuilder, type ScenarioInput } from '@turnguard/testkit';
import { setupServer, type SetupServer } from 'msw/node';
import {
  runAgentLoop,
  type AgentLoopEvent,
  type Prompt,
  PROTOCOLS,
  type Protocol,
  type ProtocolAdapter,
  type RunAgentLoopOptions,
} from '../../src/index.js';

export const BASE_URL = 'https://loop-upstream.test/v1';
/** The Messages adapter appends `/v1/messages` itself (docs/decisions/0041); the others append their path to a `/v1` base. */
export const TARGET_BASE_URL: Record<Protocol, string> = {
  chat: BASE_URL,
  messages: 'https://loop-upstream.test',
  responses: BASE_URL,
};

const ADAPTERS: Record<Protocol, ProtocolAdapter<object>> = {
  chat: chatAdapter as unknown as ProtocolAdapter<object>,
  messages: messagesAdapter as unknown as ProtocolAdapter<object>,
  responses: responsesAdapter as unknown as ProtocolAdapter<object>,
};

export const TOOLS = [
  { name: 'read_file', description: 'Reads a file', inputSchema: { type: 'object', properties: { path: { type: 'string' } } } },
  { name: 'write_file', description: 'Writes a file', inputSchema: { type: 'object', properties: { path: { type: 'string' }, body: { type: 'string' } } } },
];

/** Each protocol's own word for "stopped at the output limit". */
export const LENGTH_FINISH: Record<Protocol, string> = { chat: 'length', messages: 'max_tokens', responses: 'incomplete:max_output_tokens' };
/** Each protocol's native output-cap field. */
export const MAX_TOKENS_FIELD: Record<Protocol, string> = { chat: 'max_completion_tokens', messages: 'max_tokens', responses: 'max_output_tokens' };
/** What each adapter sends when the host sets no cap: Messages requires one (decision 0041); the others leave it to the server. */
export const ADAPTER_DEFAULT_CAP: Record<Protocol, number | undefined> = { chat: undefined, messages: DEFAULT_MAX_TOKENS, responses: undefined };

export function startUpstream(): { upstream: MockUpstream; server: SetupServer } {
  const upstream = createMockUpstream();
  const server = setupServer(...upstream.handlers(BASE_URL));
  server.listen({ onUnhandledRequest: 'error' });
  // msw tees mocked responses for its events; an unread clone would keep a cancelled body open.
  server.events.on('response:mocked', ({ response }) => {
    response.body?.cancel().catch(() => undefined);
  });
  return { upstream, server };
}

export function enqueue(upstream: MockUpstream, protocol: Protocol, ...scenarios: ScenarioInput[]): void {
  (upstream[protocol] as { enqueue(...inputs: ScenarioInput[]): unknown }).enqueue(...scenarios);
}

/** A scenario builder for the protocol, typed loosely so one test body serves all three. */
export function reply(protocol: Protocol): ScenarioBuilder<Protocol> {
  return scenario.for(protocol) as ScenarioBuilder<Protocol>;
}

/** A response cut by the output limit, in the protocol's own finish vocabulary. */
export function truncated(builder: ScenarioBuilder<Protocol>, protocol: Protocol): ScenarioBuilder<Protocol> {
  return (builder as unknown as { finish(reason: string): ScenarioBuilder<Protocol> }).finish(LENGTH_FINISH[protocol]);
}

export const firstPrompt = (): Prompt => ({
  messages: [
    { role: 'system', content: [{ type: 'text', text: 'You are careful.' }] },
    { role: 'user', content: [{ type: 'text', text: 'Write the report.' }] },
  ],
});

export function startLoop(protocol: Protocol, options: Partial<RunAgentLoopOptions<object>> = {}) {
  let id = 0;
  const run = runAgentLoop<object>({
    adapter: ADAPTERS[protocol],
    prompt: firstPrompt(),
    settings: { model: 'model-a', stream: true, tools: TOOLS, toolChoice: 'auto' },
    target: { baseUrl: TARGET_BASE_URL[protocol], apiKey: 'sk-test' },
    retry: { initialDelayMs: 0, jitterRatio: 0 },
    createId: () => `id-${++id}`,
    ...options,
  });
  return run;
}

export async function collect(run: AsyncIterable<AgentLoopEvent>): Promise<AgentLoopEvent[]> {
  const events: AgentLoopEvent[] = [];
  for await (const event of run) events.push(event);
  return events;
}

type Json = Record<string, unknown>;

/** The body of every request sent on the protocol's route. */
export function sentBodies(upstream: MockUpstream, protocol: Protocol): Json[] {
  return upstream.requestsFor(protocol).map((request) => request.body as Json);
}

/** The conversation of a native request (Chat/Messages `messages`, Responses `input`). */
export function sentConversation(body: Json): Json[] {
  return ((body['messages'] ?? body['input']) as Json[]) ?? [];
}

/** All text of a native conversation entry, whatever its shape. */
export function textOfEntry(entry: Json): string {
  const content = entry['content'];
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((part) => (typeof (part as Json)['text'] === 'string' ? ((part as Json)['text'] as string) : '')).join('');
  return '';
}

/** Native user entries whose text is exactly `text`. */
export function countUserTexts(body: Json, text: string): number {
  return sentConversation(body).filter((entry) => entry['role'] === 'user' && textOfEntry(entry) === text).length;
}

/**
 * Tool call ids sent and tool result ids sent, in order, per protocol:
 * Chat `tool_calls` / `tool` messages; Messages `tool_use` / `tool_result`
 * blocks; Responses `function_call` / `function_call_output` items.
 */
export function toolIdsSent(body: Json): { calls: string[]; results: string[] } {
  const calls: string[] = [];
  const results: string[] = [];
  for (const entry of sentConversation(body)) {
    if (entry['type'] === 'function_call') calls.push(entry['call_id'] as string);
    if (entry['type'] === 'function_call_output') results.push(entry['call_id'] as string);
    if (entry['role'] === 'tool') results.push(entry['tool_call_id'] as string);
    for (const call of (entry['tool_calls'] as Json[] | undefined) ?? []) calls.push(call['id'] as string);
    if (Array.isArray(entry['content'])) {
      for (const block of entry['content'] as Json[]) {
        if (block['type'] === 'tool_use') calls.push(block['id'] as string);
        if (block['type'] === 'tool_result') results.push(block['tool_use_id'] as string);
      }
    }
  }
  return { calls, results };
}

export { PROTOCOLS };
