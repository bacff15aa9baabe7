/** Shared by the acceptance suites: real adapters, a native request per protocol, a recording stats sink. No msw here (loopback tests load this too). */
import { chatAdapter } from '@turnguard/adapter-chat';
import { messagesAdapter } from '@turnguard/adapter-messages';
import { responsesAdapter } from '@turnguard/adapter-responses';
import type { ScenarioInput } from '@turnguard/testkit';
import {
  runTurn,
  type Prompt,
  PROTOCOLS,
  type Protocol,
  type ProtocolAdapter,
  type RunTurnOptions,
  type TurnEvent,
  type TurnRecord,
  type TurnSettings,
  type UsageSample,
} from '../src/index.js';

export const BASE_URL = 'https://upstream.test/v1';
export const MARKER = 'PRIVATE-PROMPT-MARKER-5d1e';

/** Anthropic's base URL convention has no `/v1` (the adapter appends `/v1/messages`, like the SDK). */
export function targetBaseUrl(protocol: Protocol, baseUrl = BASE_URL): string {
  return protocol === 'messages' ? baseUrl.replace(/\/v1$/, '') : baseUrl;
}

// Four declared tools: some upstreams fingerprint the declarations, so recovery keeps them and disables tool calling in the dialect instead (R4.5).
const TOOLS = ['read_file', 'write_file', 'run_shell', 'search'].map((name) => ({
  name,
  description: `${name} tool`,
  inputSchema: { type: 'object', properties: { arg: { type: 'string' } } },
}));

const ADAPTERS: Record<Protocol, ProtocolAdapter<object>> = {
  chat: chatAdapter as unknown as ProtocolAdapter<object>,
  messages: messagesAdapter as unknown as ProtocolAdapter<object>,
  responses: responsesAdapter as unknown as ProtocolAdapter<object>,
};

export function adapterFor(protocol: Protocol): ProtocolAdapter<object> {
  return ADAPTERS[protocol];
}

export function buildNativeRequest(protocol: Protocol, settings: Partial<TurnSettings> = {}): object {
  const prompt: Prompt = {
    messages: [
      { role: 'system', content: [{ type: 'text', text: 'You are careful.' }] },
      { role: 'user', content: [{ type: 'text', text: `Prove the lemma. ${MARKER}` }] },
    ],
  };
  return adapterFor(protocol).buildRequest(prompt, {
    model: 'mimo-v2.6-flash',
    stream: true,
    maxOutputTokens: 32768,
    tools: TOOLS,
    toolChoice: 'auto',
    ...settings,
  });
}

export interface TurnHarness {
  run: ReturnType<typeof runTurn>;
  samples: UsageSample[];
  turns: TurnRecord[];
}

export function startTurn(
  protocol: Protocol,
  options: Partial<RunTurnOptions<object>> & { settings?: Partial<TurnSettings>; baseUrl?: string } = {},
): TurnHarness {
  const samples: UsageSample[] = [];
  const turns: TurnRecord[] = [];
  const { settings, baseUrl, ...rest } = options;
  const run = runTurn({
    adapter: adapterFor(protocol),
    request: buildNativeRequest(protocol, settings),
    target: { baseUrl: targetBaseUrl(protocol, baseUrl), apiKey: 'sk-test', headers: { 'x-session-id': 'session-42' } },
    retry: { initialDelayMs: 0, jitterRatio: 0 },
    stats: { recordUsage: (sample) => void samples.push(sample), recordTurn: (turn) => void turns.push(turn) },
    ...rest,
  });
  return { run, samples, turns };
}

export async function collectEvents(
  run: AsyncIterable<TurnEvent>,
  onEvent?: (event: TurnEvent) => void,
): Promise<TurnEvent[]> {
  const events: TurnEvent[] = [];
  for await (const event of run) {
    events.push(event);
    onEvent?.(event);
  }
  return events;
}

export function enqueue(
  upstream: { chat: unknown; messages: unknown; responses: unknown },
  protocol: Protocol,
  ...scenarios: ScenarioInput[]
): void {
  (upstream[protocol] as { enqueue(...inputs: ScenarioInput[]): unknown }).enqueue(...scenarios);
}

export const textOf = (events: TurnEvent[]): string =>
  events.map((event) => (event.type === 'text-delta' ? event.delta : '')).join('');

export { PROTOCOLS };
