import { scenario, startLoopbackUpstream, type LoopbackUpstream } from '@turnguard/testkit';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runGatewayCli } from '../cli/run-gateway-cli.js';
import type { Gateway } from '../create-gateway.js';

// R8.11, R8.5, R4.10: the CLI as a user runs it, at its chattiest level, over real sockets.
// Markers ride in every private place; none may reach stdout or stderr, in either log format.
const MARK = {
  prompt: 'MARKPROMPT7',
  thinking: 'MARKTHINKING7',
  answer: 'MARKANSWER7',
  toolArgument: 'MARKTOOLARG7',
  toolResult: 'MARKTOOLRESULT7',
  clientKey: 'sk-MARKCLIENTKEY7-000000000000',
  envKey: 'sk-MARKENVKEY7-0000000000000000',
  token: 'MARKTOKEN7-0123456789abcdef',
};

let upstream: LoopbackUpstream | undefined;
let gateway: Gateway | undefined;

afterEach(async () => {
  await gateway?.close();
  await upstream?.close();
  gateway = undefined;
  upstream = undefined;
  vi.restoreAllMocks();
});

async function runTraffic(logFormat: 'json' | 'pretty'): Promise<{ printed: string; metrics: string }> {
  upstream = await startLoopbackUpstream();
  const printed: string[] = [];
  // Anything written to the real process streams counts too, not only what goes through the CLI's io.
  for (const stream of [process.stdout, process.stderr]) {
    const original = stream.write.bind(stream);
    vi.spyOn(stream, 'write').mockImplementation(((chunk: unknown, ...rest: unknown[]) => {
      printed.push(String(chunk));
      return (original as (...args: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof stream.write);
  }
  const root = upstream.baseUrl.replace(/\/v1$/, '');
  const io = {
    env: { OPENAI_API_KEY: MARK.envKey, TURNGUARD_AUTH_TOKEN: MARK.token },
    writeOut: (text: string) => void printed.push(text),
    writeErr: (text: string) => void printed.push(text),
  };
  const argv = ['serve', '--port', '0', '--no-stats', '--log-level', 'trace', '--log-format', logFormat, '--max-retries', '1',
    '--upstream-chat', upstream.baseUrl, '--upstream-responses', upstream.baseUrl, '--upstream-messages', root];
  const result = await runGatewayCli(argv, io);
  expect(result.exitCode).toBe(0);
  gateway = result.gateway!;

  upstream.messages.enqueue(
    scenario.messages().reasoning(`${MARK.thinking} weighing it`).usage({ input: 7, output: 1 }).eof(),
    scenario.messages().text(`${MARK.answer} after recovery`).usage({ input: 7, output: 3 }),
  );
  const anthropic = new Anthropic({ apiKey: MARK.clientKey, baseURL: gateway.url!, maxRetries: 0, defaultHeaders: { 'x-turnguard-token': MARK.token } });
  await anthropic.messages.stream({ model: 'claude-test', max_tokens: 4096, messages: [{ role: 'user', content: MARK.prompt }] }).finalMessage();

  upstream.chat.enqueue(
    scenario.chat().toolCall('lookup', { q: MARK.toolArgument }).usage({ input: 3, output: 2 }),
    scenario.chat().httpError(500, { message: `echo ${MARK.prompt} ${MARK.clientKey}` }),
    scenario.chat().httpError(400, { message: `bad request echoing ${MARK.prompt} and ${MARK.envKey}` }),
  );
  // The token as the key: the gateway's environment key goes upstream.
  const openai = new OpenAI({ apiKey: MARK.token, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  await openai.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: MARK.prompt }], tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }] });
  await openai.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: MARK.prompt }] }).catch(() => undefined);
  // A wrong token, carrying a key of the client's own.
  await new OpenAI({ apiKey: MARK.clientKey, baseURL: `${gateway.url}/v1`, maxRetries: 0 }).chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: MARK.prompt }] }).catch(() => undefined);
  // R12.3: text where a model name or a request id belongs never becomes a log field or a metric label.
  upstream.chat.enqueue(scenario.chat().text(`${MARK.answer} again`).usage({ input: 3, output: 2 }));
  await new OpenAI({ apiKey: MARK.token, baseURL: `${gateway.url}/v1`, maxRetries: 0, defaultHeaders: { 'x-request-id': `${MARK.prompt} as an id` } })
    .chat.completions.create({
      model: `${MARK.prompt} as a model`,
      messages: [
        { role: 'user', content: MARK.prompt },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: 'call_1', content: MARK.toolResult },
      ],
    });
  // R12.2: the scrape, as Prometheus reads it, counts the same traffic.
  const metrics = await (await fetch(`${gateway.url}/metrics`, { headers: { 'x-turnguard-token': MARK.token } })).text();
  await gateway.close();
  gateway = undefined;
  return { printed: printed.join(''), metrics };
}

describe('R8.11 the log never holds content, keys or thinking', () => {
  it.each(['json', 'pretty'] as const)('--log-format %s: request lines are written, no marker is', async (format) => {
    const { printed, metrics } = await runTraffic(format);
    expect(upstream!.requests.length).toBeGreaterThanOrEqual(4);
    // The traffic really carried the markers upstream (so their absence below means something).
    expect(JSON.stringify(upstream!.requests.map((request) => request.body))).toContain(MARK.prompt);
    expect(JSON.stringify(upstream!.requests.map((request) => request.body))).toContain(MARK.toolResult);
    expect(upstream!.requests.some((request) => request.headers.authorization === `Bearer ${MARK.envKey}`)).toBe(true);
    const requestLine = format === 'json' ? /"msg":"request"/g : /INFO[^\n]*: request\n/g;
    // Five turns or refusals and the scrape.
    expect(printed.match(requestLine)).toHaveLength(6);
    if (format === 'pretty') expect(printed).toMatch(/route: "\/v1\/messages"\n/);
    expect(printed).toMatch(/upstream request failed; retrying/);
    // The metrics really counted this traffic (so the markers' absence from them means something).
    expect(metrics).toMatch(/turnguard_logical_turns_total\{protocol="chat",model="other",outcome="ok"\} 1/);
    expect(metrics).toMatch(/turnguard_retries_total\{protocol="chat",model="gpt-test",code="SERVER"\} 1/);
    expect(metrics).toMatch(/turnguard_tokens_total\{protocol="messages",model="claude-test",type="output"\} 4/);
    for (const [where, marker] of Object.entries(MARK)) {
      expect(printed.includes(marker), `${where} marker printed`).toBe(false);
      expect(metrics.includes(marker), `${where} marker in a metric`).toBe(false);
    }
  });
});
