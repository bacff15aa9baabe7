import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedGateway, type ScriptedGateway } from './testing/scripted-sse-upstream.test-helper.js';
import { chatBaseline, withoutHelperFields } from './testing/sdk-accumulator-baseline.test-helper.js';

// R8.6: a non-streaming answer streams upstream (for R4) yet is the JSON the upstream would
// have sent — what the official SDK's stream accumulator builds from the same bytes (decision 0235).
// Real loopback HTTP both ways; the scripted upstream writes each reply in uneven pieces.
type Json = Record<string, unknown>;

let scripted: ScriptedGateway;
beforeEach(async () => {
  scripted = await startScriptedGateway();
});
afterEach(async () => {
  await scripted.close();
});

const chatSse = (chunks: readonly Json[], done = true): string => chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`).join('') + (done ? 'data: [DONE]\n\n' : '');
const messagesSse = (events: readonly Json[]): string => events.map((event) => `event: ${String(event.type)}\r\ndata: ${JSON.stringify(event)}\r\n\r\n`).join('');

async function postJson(protocol: 'chat' | 'messages', body: Json): Promise<{ status: number; json: Json }> {
  const response = await scripted.post(protocol, { stream: false, max_tokens: 4096, messages: [{ role: 'user', content: 'hi' }], ...body });
  return { status: response.status, json: (await response.json()) as Json };
}

const head = { id: 'chatcmpl-rich', object: 'chat.completion.chunk', created: 1770000000, model: 'gpt-x-2026', service_tier: 'priority', system_fingerprint: 'fp_rich' };
const token = (text: string, logprob: number): Json => ({ token: text, logprob, bytes: [...Buffer.from(text)], top_logprobs: [{ token: text, logprob, bytes: [...Buffer.from(text)] }] });
const richChat: Json[] = [
  // The first chunk already has logprobs: openai-node would list its tokens twice (decision 0235).
  { ...head, choices: [{ index: 0, delta: { role: 'assistant', content: 'Hel', refusal: null }, logprobs: { content: [token('Hel', -0.1)], refusal: null }, finish_reason: null }], usage: null, x_groq: { id: 'req_groq_1' } },
  { ...head, choices: [{ index: 0, delta: { content: 'lo é' }, logprobs: { content: [token('lo', -0.2), token(' é', -0.3)], refusal: null }, finish_reason: null }], usage: null },
  { ...head, choices: [{ index: 0, delta: { refusal: 'No' }, logprobs: { content: null, refusal: [token('No', -0.4)] }, finish_reason: null }], usage: null },
  { ...head, choices: [{ index: 0, delta: { refusal: ' way.', annotations: [{ type: 'url_citation', url_citation: { url: 'https://example.com/a', title: 'A', start_index: 0, end_index: 3 } }] }, logprobs: { content: null, refusal: [token(' way.', -0.5)] }, finish_reason: null }], usage: null },
  { ...head, choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' }], usage: null, x_groq: { id: 'req_groq_1', usage: { queue_time: 0.01 } } },
  {
    ...head,
    choices: [],
    usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18, prompt_tokens_details: { cached_tokens: 3, audio_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 0, accepted_prediction_tokens: 1, rejected_prediction_tokens: 0 } },
  },
];

const messageStart = (id: string, extra: Json, usage: Json): Json => ({
  type: 'message_start',
  message: { id, type: 'message', role: 'assistant', model: 'claude-x-2026', content: [], stop_reason: null, stop_sequence: null, ...extra, usage },
});
const richMessages: Json[] = [
  messageStart('msg_rich', { container: null }, { input_tokens: 20, cache_creation_input_tokens: 5, cache_read_input_tokens: 7, cache_creation: { ephemeral_5m_input_tokens: 5, ephemeral_1h_input_tokens: 0 }, output_tokens: 1, service_tier: 'standard' }),
  { type: 'ping' },
  { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'citations_delta', citation: { type: 'char_location', cited_text: 'the sky is blue', document_index: 0, document_title: 'Doc', start_char_index: 0, end_char_index: 15 } } },
  { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'The sky ' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'is blue é.' } },
  { type: 'content_block_stop', index: 0 },
  { type: 'content_block_start', index: 1, content_block: { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {} } },
  { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"query":' } },
  { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '"sky"}' } },
  { type: 'content_block_stop', index: 1 },
  { type: 'content_block_start', index: 2, content_block: { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [{ type: 'web_search_result', url: 'https://example.com/sky', title: 'Sky', encrypted_content: 'enc', page_age: null }] } },
  { type: 'content_block_stop', index: 2 },
  { type: 'message_delta', delta: { stop_reason: 'stop_sequence', stop_sequence: '\n\nEND', container: { id: 'container_1', expires_at: '2026-12-03T00:00:00Z' } }, usage: { output_tokens: 12, input_tokens: 20, cache_read_input_tokens: 7, server_tool_use: { web_search_requests: 1 } } },
  { type: 'message_stop' },
];

describe('R8.6 non-streaming JSON equals the SDK accumulator’s result (scripted loopback upstream)', () => {
  it('chat: system_fingerprint, service_tier, logprobs, refusal, annotations, x_groq and the upstream’s usage details', async () => {
    const text = chatSse(richChat);
    scripted.replies.push(text);
    const direct = await new OpenAI({ apiKey: 'k', baseURL: `${scripted.upstreamBase}/v1`, maxRetries: 0 }).chat.completions.stream({ model: 'm', messages: [{ role: 'user', content: 'hi' }], logprobs: true }).finalChatCompletion();
    scripted.replies.push(text);
    const { status, json } = await postJson('chat', { logprobs: true });
    expect(status).toBe(200);
    // The gateway streamed upstream (R4) although the client did not ask for a stream.
    expect(scripted.bodies[1]).toMatchObject({ stream: true, logprobs: true });
    expect(json).toEqual(chatBaseline(direct, richChat));
    // Not vacuous: the fields the neutral events do not carry are there, each token once.
    expect(json).toMatchObject({ id: 'chatcmpl-rich', system_fingerprint: 'fp_rich', service_tier: 'priority', x_groq: { id: 'req_groq_1', usage: { queue_time: 0.01 } } });
    expect(json.usage).toEqual(richChat.at(-1)!.usage);
    const choice = (json.choices as Json[])[0]!;
    expect(choice.message).toMatchObject({ content: 'Hello é', refusal: 'No way.', annotations: [{ type: 'url_citation' }] });
    expect((choice.logprobs as { content: Json[]; refusal: Json[] }).content.map((entry) => entry.token)).toEqual(['Hel', 'lo', ' é']);
    expect((choice.logprobs as { content: Json[]; refusal: Json[] }).refusal.map((entry) => entry.token)).toEqual(['No', ' way.']);
  });

  it('chat: typed content parts (Mistral Magistral) are the gateway’s text and reasoning, where openai-node concatenates the arrays as strings', async () => {
    const mistral = { id: 'mistral-typed', object: 'chat.completion.chunk', created: 1770000002, model: 'magistral-small' };
    const thinking = (text: string): Json => ({ type: 'thinking', thinking: [{ type: 'text', text }] });
    const chunks: Json[] = [
      { ...mistral, choices: [{ index: 0, delta: { role: 'assistant', content: [thinking('Let me see. ')] }, finish_reason: null }] },
      { ...mistral, choices: [{ index: 0, delta: { content: [thinking('Done.')] }, finish_reason: null }] },
      { ...mistral, choices: [{ index: 0, delta: { content: [{ type: 'text', text: 'Answer: ' }] }, finish_reason: null }] },
      { ...mistral, choices: [{ index: 0, delta: { content: 'four.' }, finish_reason: 'stop' }], usage: { prompt_tokens: 5, completion_tokens: 9, total_tokens: 14 } },
    ];
    const text = chatSse(chunks);
    scripted.replies.push(text);
    const direct = await new OpenAI({ apiKey: 'k', baseURL: `${scripted.upstreamBase}/v1`, maxRetries: 0 }).chat.completions.stream({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }).finalChatCompletion();
    expect(direct.choices[0]?.message.content).toContain('[object Object]');
    scripted.replies.push(text);
    const { json } = await postJson('chat', {});
    const expected = withoutHelperFields(direct);
    Object.assign((expected.choices as Json[])[0]!.message as Json, { content: 'Answer: four.', reasoning_content: 'Let me see. Done.' });
    expect(json).toEqual(expected);
  });

  it('messages: stop_sequence, container, citations, server tool blocks and the whole usage object', async () => {
    const text = messagesSse(richMessages);
    scripted.replies.push(text);
    const direct = await new Anthropic({ apiKey: 'k', baseURL: scripted.upstreamBase, maxRetries: 0 }).messages.stream({ model: 'm', max_tokens: 4096, messages: [{ role: 'user', content: 'hi' }] }).finalMessage();
    scripted.replies.push(text);
    const { status, json } = await postJson('messages', {});
    expect(status).toBe(200);
    expect(scripted.bodies[1]).toMatchObject({ stream: true });
    expect(json).toEqual(withoutHelperFields(direct));
    expect(json).toMatchObject({ id: 'msg_rich', stop_reason: 'stop_sequence', stop_sequence: '\n\nEND', container: { id: 'container_1' } });
    expect(json.usage).toEqual({ input_tokens: 20, cache_creation_input_tokens: 5, cache_read_input_tokens: 7, cache_creation: { ephemeral_5m_input_tokens: 5, ephemeral_1h_input_tokens: 0 }, output_tokens: 12, service_tier: 'standard', server_tool_use: { web_search_requests: 1 } });
    const content = json.content as Json[];
    expect(content.map((block) => block.type)).toEqual(['text', 'server_tool_use', 'web_search_tool_result']);
    expect(content[0]).toMatchObject({ text: 'The sky is blue é.', citations: [{ cited_text: 'the sky is blue' }] });
    expect(content[1]).toMatchObject({ input: { query: 'sky' } });
  });
});

describe('R8.6 + R4: a recovered turn’s JSON is segment 2’s object with the turn’s content and aggregated usage (R5)', () => {
  it('chat: segment 1 cut mid-reasoning, segment 2 answers', async () => {
    const first = { id: 'chatcmpl-seg1', object: 'chat.completion.chunk', created: 1770000001, model: 'gpt-x-2026', system_fingerprint: 'fp_seg1', service_tier: 'default' };
    const reasoning = ['Let me ', 'think about ', 'this carefully. '].map((piece) => ({ ...first, choices: [{ index: 0, delta: { content: null, reasoning_content: piece }, logprobs: null, finish_reason: null }], usage: null }));
    const seg1Usage = { ...first, choices: [{ index: 0, delta: { reasoning_content: 'More.' }, logprobs: null, finish_reason: null }], usage: { prompt_tokens: 10, completion_tokens: 50, total_tokens: 60 } };
    const second = { id: 'chatcmpl-seg2', object: 'chat.completion.chunk', created: 1770000009, model: 'gpt-x-2026', system_fingerprint: 'fp_seg2', service_tier: 'flex' };
    scripted.replies.push(
      chatSse([...reasoning, seg1Usage], false),
      chatSse([
        { ...second, choices: [{ index: 0, delta: { role: 'assistant', content: 'The answer ' }, logprobs: { content: [token('The answer ', -0.1)], refusal: null }, finish_reason: null }], x_groq: { id: 'req_seg2' } },
        { ...second, choices: [{ index: 0, delta: { content: 'is 42.' }, logprobs: { content: [token('is 42.', -0.2)], refusal: null }, finish_reason: 'stop' }] },
        { ...second, choices: [], usage: { prompt_tokens: 30, completion_tokens: 8, total_tokens: 38, prompt_tokens_details: { cached_tokens: 0 } } },
      ]),
    );
    const { status, json } = await postJson('chat', {});
    expect(status).toBe(200);
    expect(scripted.bodies).toHaveLength(2);
    expect(json).toMatchObject({ id: 'chatcmpl-seg2', created: 1770000009, system_fingerprint: 'fp_seg2', service_tier: 'flex', x_groq: { id: 'req_seg2' }, object: 'chat.completion' });
    const choice = (json.choices as Json[])[0]!;
    expect(choice).toMatchObject({ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'The answer is 42.', refusal: null, reasoning_content: 'Let me think about this carefully. More.' } });
    expect((choice.logprobs as { content: Json[] }).content.map((entry) => entry.token)).toEqual(['The answer ', 'is 42.']);
    // The turn's usage, not segment 2's alone.
    expect(json.usage).toEqual({ prompt_tokens: 40, completion_tokens: 58, total_tokens: 98, prompt_tokens_details: { cached_tokens: 0 } });
  });

  it('messages: segment 1 cut mid-thinking, segment 2 answers', async () => {
    const thinking = ['Let me ', 'think about ', 'this carefully.'].map((piece) => ({ type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: piece } }));
    scripted.replies.push(
      messagesSse([messageStart('msg_seg1', {}, { input_tokens: 20, output_tokens: 1 }), { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } }, ...thinking]),
      messagesSse([
        messageStart('msg_seg2', { container: { id: 'container_2', expires_at: '2026-12-03T00:00:00Z' } }, { input_tokens: 45, output_tokens: 1, service_tier: 'standard' }),
        { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Final answer.' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'citations_delta', citation: { type: 'char_location', cited_text: 'answer', document_index: 0, start_char_index: 0, end_char_index: 6 } } },
        { type: 'content_block_stop', index: 0 },
        { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 9 } },
        { type: 'message_stop' },
      ]),
    );
    const { status, json } = await postJson('messages', {});
    expect(status).toBe(200);
    expect(scripted.bodies).toHaveLength(2);
    expect(json).toMatchObject({ id: 'msg_seg2', type: 'message', model: 'claude-x-2026', stop_reason: 'end_turn', stop_sequence: null, container: { id: 'container_2' } });
    const content = json.content as Json[];
    // Segment 2's citations stay on its text block.
    expect(content.at(-1)).toEqual({ type: 'text', text: 'Final answer.', citations: [{ type: 'char_location', cited_text: 'answer', document_index: 0, start_char_index: 0, end_char_index: 6 }] });
    expect(content.filter((block) => block.type === 'text')).toHaveLength(1);
    // The turn's usage (R5): both segments' counts, not segment 2's alone.
    expect(json.usage).toMatchObject({ input_tokens: 65, output_tokens: 10 });
  });
});
