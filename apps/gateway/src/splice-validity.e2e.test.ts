import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { scenario } from '@turnguard/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './testing/gateway-harness.test-helper.js';

// R8.7: a recovery after a cut INSIDE an open thinking block / reasoning item must still be
// one valid stream under the official SDKs' accumulators and the strictest real clients: Claude Code
// answers with the block of the last content_block_stop, Codex keeps items in the order of their
// output_item.done. Real sockets: SDK → gateway → testkit loopback upstream.
let harness: Harness;

beforeEach(async () => {
  harness = await startHarness();
});
afterEach(async () => {
  await harness.close();
});

/** Every start of a block/item comes after the stop/done of the one before it, and indices only grow. */
function expectNestedNothing(events: Array<{ kind: 'start' | 'stop'; index: number }>): void {
  let open: number | undefined;
  let last = -1;
  for (const event of events) {
    if (event.kind === 'start') {
      expect(open, `start of ${event.index} while ${String(open)} is open`).toBeUndefined();
      expect(event.index).toBeGreaterThan(last);
      open = event.index;
      last = event.index;
    } else {
      expect(event.index).toBe(open);
      open = undefined;
    }
  }
  expect(open).toBeUndefined();
}

describe('R8.7 a recovery after a cut inside an open thinking block / reasoning item', () => {
  it('messages: finalMessage ends with the recovered answer; each block stops before the next starts', async () => {
    // Cut in the middle of the thinking deltas: no content_block_stop for block 0 ever arrives.
    harness.upstream.messages.enqueue(
      scenario.messages().reasoning(300).usage({ input: 7, output: 1 }).eof({ afterEvents: 6 }),
      scenario.messages().text('Recovered conclusion.').usage({ input: 7, output: 3 }),
    );
    const client = new Anthropic({ apiKey: 'sk-ant-client', baseURL: harness.url, maxRetries: 0 });
    const stream = client.messages.stream({ model: 'claude-test', max_tokens: 4096, messages: [{ role: 'user', content: 'think' }] });
    const blocks: Array<{ kind: 'start' | 'stop'; index: number }> = [];
    const types: string[] = [];
    stream.on('streamEvent', (event) => {
      types.push(event.type);
      if (event.type === 'content_block_start') blocks.push({ kind: 'start', index: event.index });
      if (event.type === 'content_block_stop') blocks.push({ kind: 'stop', index: event.index });
    });
    const message = await stream.finalMessage();
    expect(harness.upstream.requests).toHaveLength(2);
    expect(message.content.map((block) => block.type)).toEqual(['thinking', 'text']);
    expect(message.content.at(-1)).toEqual({ type: 'text', text: 'Recovered conclusion.' });
    expectNestedNothing(blocks);
    // Claude Code's view: the block of the LAST content_block_stop is the answer.
    expect(message.content[blocks.filter((block) => block.kind === 'stop').at(-1)!.index]?.type).toBe('text');
    expect(types.filter((type) => type === 'message_start')).toHaveLength(1);
    expect(types.filter((type) => type === 'message_stop')).toHaveLength(1);
  });

  it('responses: finalResponse is [reasoning, message] in order; each item is done before the next is added', async () => {
    harness.upstream.responses.enqueue(scenario.responses().reasoning(300).eof({ afterEvents: 6 }), scenario.responses().text('Recovered result.').usage({ input: 4, output: 2 }));
    const client = new OpenAI({ apiKey: 'sk-client', baseURL: harness.openAiBaseUrl, maxRetries: 0 });
    const stream = client.responses.stream({ model: 'gpt-test', input: 'think' });
    const items: Array<{ kind: 'start' | 'stop'; index: number }> = [];
    const doneOrder: string[] = [];
    const types: string[] = [];
    stream.on('event', (event) => {
      types.push(event.type);
      if (event.type === 'response.output_item.added') items.push({ kind: 'start', index: event.output_index });
      if (event.type === 'response.output_item.done') {
        items.push({ kind: 'stop', index: event.output_index });
        doneOrder.push(event.item.type);
      }
    });
    const final = await stream.finalResponse();
    expect(harness.upstream.requests).toHaveLength(2);
    expect(final.output.map((item) => item.type)).toEqual(['reasoning', 'message']);
    expect(final.output_text).toBe('Recovered result.');
    // Codex's view: items in the order their output_item.done arrived.
    expect(doneOrder).toEqual(['reasoning', 'message']);
    expectNestedNothing(items);
    expect(types.filter((type) => type === 'response.created')).toHaveLength(1);
    expect(types.filter((type) => type === 'response.completed')).toHaveLength(1);
  });

  it('chat: finalChatCompletion has the recovered answer once, one finish', async () => {
    harness.upstream.chat.enqueue(scenario.chat().reasoning(300).eof({ afterEvents: 6 }), scenario.chat().text('Recovered answer.').usage({ input: 4, output: 2 }));
    const client = new OpenAI({ apiKey: 'sk-client', baseURL: harness.openAiBaseUrl, maxRetries: 0 });
    const stream = client.chat.completions.stream({ model: 'gpt-test', messages: [{ role: 'user', content: 'think' }] });
    let finishes = 0;
    stream.on('chunk', (chunk) => {
      finishes += chunk.choices.filter((choice) => choice.finish_reason !== null).length;
    });
    const completion = await stream.finalChatCompletion();
    expect(harness.upstream.requests).toHaveLength(2);
    expect(completion.choices[0]?.message.content).toBe('Recovered answer.');
    expect(completion.choices[0]?.finish_reason).toBe('stop');
    expect(finishes).toBe(1);
  });
});

describe('R8.6 a recovered non-streaming Responses answer', () => {
  it('is segment 2’s response object with the whole turn’s items, under the upstream’s item ids', async () => {
    harness.upstream.responses.enqueue(scenario.responses().reasoning(300).eof({ afterEvents: 6 }), scenario.responses().text('Recovered result.').usage({ input: 4, output: 2 }));
    const client = new OpenAI({ apiKey: 'sk-client', baseURL: harness.openAiBaseUrl, maxRetries: 0 });
    const response = await client.responses.create({ model: 'gpt-test', input: 'think' });
    expect(harness.upstream.requests).toHaveLength(2);
    expect(response.output.map((item) => item.type)).toEqual(['reasoning', 'message']);
    expect(response.output_text).toBe('Recovered result.');
    for (const item of response.output) expect(item.id).not.toMatch(/turnguard/);
    expect(response.status).toBe('completed');
  });
});
