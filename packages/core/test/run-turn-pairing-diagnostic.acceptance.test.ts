/**
 * R2.3: a tool_use/tool_result pairing 400, in each provider's own
 * wording, carries the `role:type:id` shape around the offending id as
 * `details.pairing` — never content — and shows it in the API-error message
 * (R2.2) and the stats sample's warnings. msw-driven through the real adapters.
 */
import { scenario } from '@turnguard/testkit';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { runTurn, toAssistantErrorMessage, type Prompt, type Protocol, type UsageSample } from '../src/index.js';
import { startUpstream } from './msw-upstream.js';
import { adapterFor, collectEvents, enqueue, MARKER, PROTOCOLS, targetBaseUrl } from './turn-harness.js';

const { upstream, server } = startUpstream();
afterEach(() => upstream.reset());
afterAll(() => server.close());

const CALL_ID = 'call_7Xq2';

/** Each provider's wording of "a tool call without its result" (wire-formats §6.1; OpenAI Chat / Responses). */
const MISSING_RESULT_WORDING: Record<Protocol, string> = {
  chat: `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${CALL_ID}`,
  messages: `messages.2: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${CALL_ID}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
  responses: `No tool output found for function call ${CALL_ID}.`,
};

/** A conversation whose tool call has no result: what the provider rejects. */
const brokenPrompt: Prompt = {
  messages: [
    { role: 'user', content: [{ type: 'text', text: `Read it. ${MARKER}` }] },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: `Reading. ${MARKER}` },
        { type: 'tool-call', toolCallId: CALL_ID, toolName: 'read_file', input: '{"arg":"secret.txt"}' },
      ],
    },
    { role: 'user', content: [{ type: 'text', text: `Go on. ${MARKER}` }] },
  ],
};

const TOKENS = ['user:text:-', 'assistant:text:-', `assistant:tool-call:${CALL_ID}`, 'user:text:-'];

function startBrokenTurn(protocol: Protocol) {
  const samples: UsageSample[] = [];
  const adapter = adapterFor(protocol);
  const tools = [{ name: 'read_file', description: 'reads', inputSchema: { type: 'object', properties: { arg: { type: 'string' } } } }];
  const run = runTurn({
    adapter,
    request: adapter.buildRequest(brokenPrompt, { model: 'm', stream: true, maxOutputTokens: 1000, tools, toolChoice: 'auto' }),
    target: { baseUrl: targetBaseUrl(protocol), apiKey: 'sk-test' },
    retry: { initialDelayMs: 0, jitterRatio: 0 },
    stats: { recordUsage: (sample) => void samples.push(sample), recordTurn: () => undefined },
  });
  return { run, samples };
}

describe.each(PROTOCOLS)('pairing diagnostic on a pairing 400 over %s (R2.3)', (protocol) => {
  it('details.pairing holds the role:type:id tokens, shown in the API-error message and the sample warnings, never content', async () => {
    enqueue(upstream, protocol, scenario.for(protocol).httpError(400, { type: 'invalid_request_error', message: MISSING_RESULT_WORDING[protocol] }));
    const { run, samples } = startBrokenTurn(protocol);
    await collectEvents(run);
    const result = await run.result;

    expect(result.error?.kind).toBe('invalid_request');
    expect(result.error?.details).toMatchObject({ pairing: TOKENS, pairingToolCallId: CALL_ID });
    const apiError = toAssistantErrorMessage(result.error!);
    const shown = apiError.content[0]?.type === 'text' ? apiError.content[0].text : '';
    expect(shown).toContain(TOKENS.join(' '));
    expect(apiError.errorDetails).toContain(`pairing=[${TOKENS.join(' ')}]`);
    expect(samples).toHaveLength(1);
    expect(samples[0]!.warnings.join('\n')).toContain(TOKENS.join(' '));
    expect(result.warnings.join('\n')).toContain(`assistant:tool-call:${CALL_ID}`);
    // Content-free: neither the prompt text nor the tool input leaves through the diagnostic.
    const surfaces = JSON.stringify([result.error?.details, shown, apiError.errorDetails, samples[0]!.warnings]);
    expect(surfaces).not.toContain(MARKER);
    expect(surfaces).not.toContain('secret.txt');
  });

  it('an ordinary 400 gets no pairing diagnostic', async () => {
    enqueue(upstream, protocol, scenario.for(protocol).httpError(400, { type: 'invalid_request_error', message: 'Invalid value for temperature.' }));
    const { run, samples } = startBrokenTurn(protocol);
    await collectEvents(run);
    const result = await run.result;
    expect(result.error?.details['pairing']).toBeUndefined();
    expect(samples[0]!.warnings).toEqual([]);
  });
});
