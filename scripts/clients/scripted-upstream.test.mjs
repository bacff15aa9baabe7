// Self-check of the scripted upstream, without the CLIs, root or a namespace:
// its streams must parse under the official SDKs' own accumulators, and the
// cut / recovery scripts must do what the scenarios claim. Run:
//   node --test scripts/clients/
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { MARK } from './replies.mjs';
import { CHECKPOINT_MARKER } from './request-shape.mjs';
import { startScriptedUpstream } from './scripted-upstream.mjs';

// The SDKs are the gateway's dev dependencies (pnpm keeps them out of the root).
const gatewayRequire = createRequire(join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'apps', 'gateway', 'package.json'));
const load = async (name) => (await import(pathToFileURL(gatewayRequire.resolve(name)).href)).default;

const TOOLS = [{ name: 'Bash', description: 'shell', input_schema: { type: 'object', properties: {} } }];
const USER = [{ role: 'user', content: 'hi' }];
let upstream;
let anthropic;
let openai;

before(async () => {
  upstream = await startScriptedUpstream();
  const [Anthropic, OpenAI] = await Promise.all([load('@anthropic-ai/sdk'), load('openai')]);
  anthropic = new Anthropic({ baseURL: `http://127.0.0.1:${upstream.port}`, apiKey: 'test', maxRetries: 0 });
  openai = new OpenAI({ baseURL: `http://127.0.0.1:${upstream.port}/v1`, apiKey: 'test', maxRetries: 0 });
});
after(() => upstream.close());

test('plain: the SDK accumulators read the scripted answer (Messages and Responses)', async () => {
  upstream.setScenario('plain');
  const message = await anthropic.messages.stream({ model: 'm', max_tokens: 100, messages: USER, tools: TOOLS }).finalMessage();
  assert.deepEqual(message.content.map((block) => block.type), ['text']);
  assert.equal(message.content[0].text, MARK.plain);
  assert.equal(message.stop_reason, 'end_turn');
  const response = await openai.responses.stream({ model: 'm', input: 'hi' }).finalResponse();
  assert.equal(response.status, 'completed');
  assert.equal(response.output_text, MARK.plain);
});

const CHAT_TOOLS = [{ type: 'function', function: { name: 'agent', parameters: { type: 'object', properties: {} } } }, { type: 'function', function: { name: 'run_shell_command', parameters: { type: 'object', properties: {} } } }];

test('Chat Completions: the SDK accumulator reads the plain answer; a cut thinking stream has no finish_reason and no [DONE]; the tool script calls the declared shell tool', async () => {
  upstream.setScenario('plain');
  const completion = await openai.chat.completions.stream({ model: 'm', messages: USER, tools: CHAT_TOOLS, stream_options: { include_usage: true } }).finalChatCompletion();
  assert.equal(completion.choices[0].message.content, MARK.plain);
  assert.equal(completion.choices[0].finish_reason, 'stop');
  assert.equal(completion.usage?.total_tokens, 106);
  upstream.setScenario('cut-thinking');
  const chunks = [];
  for await (const chunk of await openai.chat.completions.create({ model: 'm', messages: USER, tools: CHAT_TOOLS, stream: true })) chunks.push(chunk);
  assert.ok(chunks.some((chunk) => chunk.choices[0]?.delta?.reasoning_content !== undefined));
  assert.ok(chunks.every((chunk) => chunk.choices[0]?.finish_reason === null), 'no finish_reason on a cut stream');
  upstream.setScenario('tool');
  const call = await openai.chat.completions.stream({ model: 'm', messages: USER, tools: CHAT_TOOLS }).finalChatCompletion();
  assert.equal(call.choices[0].finish_reason, 'tool_calls');
  assert.equal(call.choices[0].message.tool_calls?.[0]?.function.name, 'run_shell_command');
  assert.match(call.choices[0].message.tool_calls?.[0]?.function.arguments ?? '', new RegExp(MARK.toolEcho));
  // Qwen Code's memory subagent (told by its prompt) and opencode's title call (no tools) are side requests.
  upstream.setScenario('plain');
  await openai.chat.completions.create({ model: 'm', messages: USER, tools: CHAT_TOOLS });
  const subagent = [{ role: 'system', content: 'You are now acting as the managed memory extraction subagent for an AI coding assistant.' }, ...USER];
  await openai.chat.completions.create({ model: 'm', messages: subagent, tools: CHAT_TOOLS });
  await openai.chat.completions.create({ model: 'm', messages: USER });
  assert.deepEqual(upstream.takeShapes().map((shape) => shape.role), ['main', 'side', 'side']);
});

test('cut-thinking: segment 1 ends inside an open thinking block; the recovery request gets the answer', async () => {
  upstream.setScenario('cut-thinking');
  const events = [];
  for await (const event of await anthropic.messages.create({ model: 'm', max_tokens: 100, messages: USER, tools: TOOLS, stream: true })) events.push(event.type);
  assert.equal(events[0], 'message_start');
  assert.ok(events.includes('content_block_start'));
  assert.ok(!events.includes('content_block_stop') && !events.includes('message_stop'), events.join(','));
  const recovery = [{ role: 'user', content: `${CHECKPOINT_MARKER} thinking` }];
  const message = await anthropic.messages.stream({ model: 'm', max_tokens: 100, messages: recovery, tools: TOOLS }).finalMessage();
  assert.equal(message.content.at(-1).text, MARK.recovered);
  assert.deepEqual(upstream.takeShapes().map((shape) => shape.role), ['main', 'recovery']);
});

test('cut-thinking on Responses: a reasoning item is added and never done, and no response.completed', async () => {
  upstream.setScenario('cut-thinking');
  const events = [];
  for await (const event of await openai.responses.create({ model: 'm', input: 'hi', stream: true })) events.push(event.type);
  assert.deepEqual(events.slice(0, 4), ['response.created', 'response.in_progress', 'response.output_item.added', 'response.reasoning_summary_part.added']);
  assert.ok(!events.includes('response.output_item.done') && !events.includes('response.completed'), events.join(','));
});

test('failed-recovery: the recovery segment is cut too', async () => {
  upstream.setScenario('failed-recovery');
  const recovery = [{ role: 'user', content: `${CHECKPOINT_MARKER} thinking` }];
  const events = [];
  for await (const event of await anthropic.messages.create({ model: 'm', max_tokens: 100, messages: recovery, tools: TOOLS, stream: true })) events.push(event.type);
  assert.ok(events.includes('content_block_delta') && !events.includes('message_stop'), events.join(','));
});

test('tool: a tool call first, the final answer only after a tool result with the echo output', async () => {
  upstream.setScenario('tool');
  const first = await anthropic.messages.stream({ model: 'm', max_tokens: 100, messages: USER, tools: TOOLS }).finalMessage();
  assert.equal(first.stop_reason, 'tool_use');
  const call = first.content.find((block) => block.type === 'tool_use');
  assert.match(call.input.command, /echo turnguard-tool-ok/);
  const wrongResult = [...USER, { role: 'assistant', content: first.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: 'something else' }] }];
  assert.equal((await anthropic.messages.stream({ model: 'm', max_tokens: 100, messages: wrongResult, tools: TOOLS }).finalMessage()).stop_reason, 'tool_use');
  const rightResult = [...USER, { role: 'assistant', content: first.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: MARK.toolEcho }] }];
  const final = await anthropic.messages.stream({ model: 'm', max_tokens: 100, messages: rightResult, tools: TOOLS }).finalMessage();
  assert.equal(final.content[0].text, MARK.toolDone);
});

test('a non-streaming main request gets the same script as JSON; a cut one is half a JSON body', async () => {
  upstream.setScenario('plain');
  const message = await anthropic.messages.create({ model: 'm', max_tokens: 100, messages: USER, tools: TOOLS });
  assert.equal(message.content[0].text, MARK.plain);
  upstream.setScenario('cut-thinking');
  const res = await fetch(`http://127.0.0.1:${upstream.port}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' }, body: JSON.stringify({ model: 'm', max_tokens: 100, messages: USER, tools: TOOLS }) });
  const text = await res.text();
  assert.ok(text.startsWith('{"id":"msg_01'), text.slice(0, 40));
  assert.throws(() => JSON.parse(text), SyntaxError);
});

test('fallback-503: the primary answers 503 every time, the fallback model the answer (R11.2)', async () => {
  upstream.setScenario('fallback-503');
  await assert.rejects(anthropic.messages.create({ model: 'claude-primary', max_tokens: 100, messages: USER, tools: TOOLS }), (error) => error.status === 503);
  await assert.rejects(openai.responses.create({ model: 'gpt-primary', input: 'hi' }), (error) => error.status === 503);
  const message = await anthropic.messages.stream({ model: 'turnguard-fallback', max_tokens: 100, messages: USER, tools: TOOLS }).finalMessage();
  assert.equal(message.content[0].text, MARK.fallback);
});

test('cut-continued: the answer is cut mid-text; a request ending in the assistant prefill gets the rest (R11.6)', async () => {
  upstream.setScenario('cut-continued');
  const events = [];
  for await (const event of await anthropic.messages.create({ model: 'm', max_tokens: 100, messages: USER, tools: TOOLS, stream: true })) events.push(event.type);
  assert.ok(!events.includes('message_stop'), events.join(','));
  const prefill = [...USER, { role: 'assistant', content: MARK.continuedFirst.trimEnd() }];
  const rest = await anthropic.messages.stream({ model: 'm', max_tokens: 100, messages: prefill, tools: TOOLS }).finalMessage();
  assert.equal(rest.content[0].text, MARK.continuedRest);
});
