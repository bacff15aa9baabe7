import { PROTOCOLS, type DecodedStreamEvent, type FetchFunction, type Protocol } from '@turnguard/core';
import { collectEvents, frameRecordedLines, readRecordedStreams, scenario, streamOfText } from '@turnguard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selectAdapter } from './protocol-routes.js';
import { readSseRecords, startHarness } from './testing/gateway-harness.test-helper.js';
import { startScriptedGateway, type ScriptedGateway } from './testing/scripted-sse-upstream.test-helper.js';
import { withoutTurnComment } from './testing/turn-comment.test-helper.js';

// R8.6, R8.13: the gateway relays the upstream's own records (fidelity at the floor) and splices
// the adapter's encoder in only at a recovery or a final error. Real sockets both ways.
/** The gateway's own transport and a fetch the host gives (here undici's) must relay the same records. */
const TRANSPORTS: Array<{ name: string; fetch: FetchFunction | undefined }> = [
  { name: 'the node:http transport', fetch: undefined },
  { name: 'a host-given fetch (undici)', fetch: (input, init) => globalThis.fetch(input, init) },
];

/** A recording the turn ends on normally: terminal frame, no error event (cut or error recordings end otherwise). */
async function endsNormally(protocol: Protocol, text: string): Promise<boolean> {
  const events: DecodedStreamEvent[] = await collectEvents(selectAdapter(protocol).decodeStream(streamOfText(text)));
  return events.some((event) => event.type === 'stream-end' && event.terminalFrameSeen) && !events.some((event) => event.type === 'error');
}

describe.each(TRANSPORTS)('raw relay over $name', ({ fetch }) => {
  let scripted: ScriptedGateway;
  let replies: ScriptedGateway['replies'];

  beforeAll(async () => {
    scripted = await startScriptedGateway({ fetch });
    replies = scripted.replies;
  });
  afterAll(() => scripted.close());

  const post = (protocol: Protocol, body: Record<string, unknown>, signal?: AbortSignal): Promise<Response> => scripted.post(protocol, body, signal);

  describe('raw relay: every recorded provider stream reaches the client byte for byte (R8.2, R8.6)', () => {
    for (const protocol of PROTOCOLS) {
      it(`${protocol}: recordings that end normally are relayed unchanged, fields the adapters do not model included`, async () => {
        let relayed = 0;
        for (const recording of readRecordedStreams(protocol)) {
          const text = frameRecordedLines(protocol, recording.lines);
          if (!(await endsNormally(protocol, text))) continue;
          replies.push(text);
          // Chat: the client asks for usage, so nothing is left out.
          const response = await post(protocol, protocol === 'chat' ? { stream_options: { include_usage: true } } : {});
          expect(response.status, recording.name).toBe(200);
          // A repeat of the open message's message_start is the one record left out (one message_start, R8.7, R8.13).
          const once = recording.lines.filter((line, at) => !(protocol === 'messages' && at > 0 && line === recording.lines[0] && line.includes('"message_start"')));
          expect(withoutTurnComment(await response.text()), recording.name).toBe(frameRecordedLines(protocol, once));
          relayed += 1;
        }
        expect(relayed).toBeGreaterThanOrEqual(4);
      });
    }

    for (const protocol of PROTOCOLS) {
      it(`${protocol}: every recording cut halfway reaches the client as its own whole records, then one well-formed error ending`, async () => {
        let checked = 0;
        let beforeOutput = 0;
        for (const recording of readRecordedStreams(protocol)) {
          if (recording.lines.length < 4) continue;
          const lines = recording.lines.slice(0, Math.floor(recording.lines.length / 2));
          const text = frameRecordedLines(protocol, lines, { withDone: false });
          replies.push(text);
          const response = await post(protocol, {});
          const read = await response.text();
          const body = response.status === 200 ? withoutTurnComment(read) : read;
          if (response.status !== 200) {
            // Cut before any output: retried, then an HTTP error in the protocol's JSON shape (R8.3), no SSE at all.
            expect(JSON.parse(body), recording.name).toHaveProperty(protocol === 'messages' ? 'type' : 'error');
            beforeOutput += 1;
            continue;
          }
          const records = body.split('\n\n').filter((record) => record !== '');
          const upstreamRecords = new Set(text.split('\n\n'));
          // A raw prefix of the upstream's own records (Chat may lose its usage-only chunk), then what the encoder wrote.
          const firstEncoded = records.findIndex((record) => !upstreamRecords.has(record));
          expect(firstEncoded, recording.name).toBeGreaterThanOrEqual(0);
          for (const record of records) {
            const data = record.split('\n').find((line) => line.startsWith('data: '))?.slice(6);
            if (data !== undefined && data !== '[DONE]') expect(() => JSON.parse(data), `${recording.name}: ${data.slice(0, 60)}`).not.toThrow();
          }
          const ending = records.slice(firstEncoded).join('\n\n');
          if (protocol === 'chat') expect(records.at(-2), recording.name).toMatch(/^data: \{"error":/);
          if (protocol === 'chat') expect(records.at(-1), recording.name).toBe('data: [DONE]');
          if (protocol === 'messages') expect(records.at(-1), recording.name).toMatch(/^event: error\n/);
          if (protocol === 'messages') expect(body.match(/event: message_start\n/g)?.length ?? 0, recording.name).toBeLessThanOrEqual(1);
          if (protocol === 'responses') expect(ending, recording.name).toMatch(/event: error\n[\s\S]*event: response\.failed\n/);
          if (protocol === 'responses') expect(body.match(/event: response\.created\n/g)?.length ?? 0, recording.name).toBeLessThanOrEqual(1);
          checked += 1;
        }
        expect(checked).toBeGreaterThanOrEqual(3);
        expect(checked + beforeOutput).toBeGreaterThanOrEqual(5);
      });
    }

    it('chat: a client that did not ask for usage gets no usage-only chunk; every other chunk is the upstream’s', async () => {
      const recording = readRecordedStreams('chat').find((stream) => stream.lines.some((line) => line.includes('"choices":[]')));
      expect(recording).toBeDefined();
      const text = frameRecordedLines('chat', recording!.lines);
      replies.push(text);
      const body = withoutTurnComment(await (await post('chat', {})).text());
      const usageOnly = text.split('\n\n').filter((record) => record.includes('"choices":[]'));
      expect(usageOnly.length).toBeGreaterThan(0);
      expect(body).toBe(text.split('\n\n').filter((record) => !record.includes('"choices":[]')).join('\n\n'));
    });

    it('chat: a long answer written at once (reads far over 16 KiB, framed a part at a time) reaches the client byte for byte, LF and CRLF', async () => {
      for (const end of ['\n', '\r\n']) {
        const chunk = (fields: Record<string, unknown>) => `data: ${JSON.stringify({ id: 'chatcmpl-long', object: 'chat.completion.chunk', created: 1, model: 'm', ...fields })}${end}${end}`;
        const text = [
          chunk({ choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] }),
          ...Array.from({ length: 3000 }, (_, index) => chunk({ choices: [{ index: 0, delta: { content: `w${index}é ` }, finish_reason: null }] })),
          chunk({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }),
          chunk({ choices: [], usage: { prompt_tokens: 1, completion_tokens: 3000, total_tokens: 3001 } }),
          `data: [DONE]${end}${end}`,
        ].join('');
        expect(text.length).toBeGreaterThan(256 * 1024);
        replies.push(text);
        const response = await post('chat', { stream_options: { include_usage: true } });
        expect(response.status).toBe(200);
        expect(withoutTurnComment(await response.text()), JSON.stringify(end)).toBe(text);
      }
    });
  });

  describe('R8.4 a client that leaves while the upstream is silent', () => {
    it('closes the upstream request at once: no waiting for the next upstream event, no second request', async () => {
      let upstreamClosed!: () => void;
      const closed = new Promise<void>((resolve) => (upstreamClosed = resolve));
      replies.push((response) => {
        response.on('close', () => upstreamClosed());
        // One record, then silence (a long think): only the client's departure can end this request.
        response.write(`data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { reasoning_content: 'thinking' }, finish_reason: null }] })}\n\n`);
      });
      const requestsBefore = scripted.bodies.length;
      const client = new AbortController();
      const response = await post('chat', {}, client.signal);
      const reader = response.body!.getReader();
      await reader.read();
      client.abort();
      await closed;
      expect(scripted.bodies.length - requestsBefore).toBe(1);
    });
  });

  describe('R8.2 relayed as it arrives', () => {
    it('the client reads the first records while the upstream still holds the rest (it sends them only after that)', async () => {
      const chunk = (content: string): string => `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;
      let clientSawFirst!: () => void;
      const seen = new Promise<void>((resolve) => (clientSawFirst = resolve));
      replies.push((response) => {
        response.write(chunk('first '));
        // No timer: the rest goes out only once the client has read the first words through the gateway.
        void seen.then(() => response.end(`${chunk('second')}data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\ndata: [DONE]\n\n`));
      });
      const response = await post('chat', {});
      const reader = response.body!.getReader();
      const decoder = new TextDecoder();
      let text = '';
      while (!text.includes('first ')) {
        const { done, value } = await reader.read();
        expect(done).toBe(false);
        text += decoder.decode(value, { stream: true });
      }
      expect(text).not.toContain('second');
      clientSawFirst();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
      }
      expect(text).toContain('"content":"second"');
      expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
    });
  });

  describe('raw relay splices the encoder in within one read (R8.3, R8.13)', () => {
    it('an in-stream error right after text in the same read: the text once, then the encoder’s error and [DONE], not the upstream’s record', async () => {
      const chunk = (fields: Record<string, unknown>): string => `data: ${JSON.stringify({ id: 'chatcmpl-raw', object: 'chat.completion.chunk', created: 1, model: 'm', ...fields })}\n\n`;
      const upstreamError = 'data: {"error":{"message":"upstream broke","type":"server_error","code":"boom_upstream"}}\n\n';
      replies.push(chunk({ choices: [{ index: 0, delta: { role: 'assistant', content: 'Hello ' }, finish_reason: null }] }) + chunk({ choices: [{ index: 0, delta: { content: 'world' }, finish_reason: null }] }) + upstreamError);
      const records = await readSseRecords(await post('chat', {}));
      const text = records.flatMap((record) => (record.data.startsWith('{"id"') ? [JSON.parse(record.data).choices[0]?.delta?.content ?? ''] : [])).join('');
      expect(text).toBe('Hello world');
      expect(records.filter((record) => record.data.includes('"error"'))).toHaveLength(1);
      expect(records.some((record) => record.data.includes('boom_upstream') && record.data.startsWith('{"error":{"message":"upstream broke","type":"server_error","code":"boom_upstream"}}'))).toBe(false);
      expect(records.at(-1)?.data).toBe('[DONE]');
    });
  });
});

describe('raw relay splices the encoder in where the stream must change (R8.3, R8.7)', () => {
  it('messages recovery after relayed thinking: one message_start, block indices continue, every block stopped once', async () => {
    const harness = await startHarness();
    try {
      harness.upstream.messages.enqueue(scenario.messages().reasoning(300).usage({ input: 5, output: 1 }).eof(), scenario.messages().text('Recovered.').usage({ input: 5, output: 2 }));
      const response = await fetch(`${harness.url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': 'k' },
        body: JSON.stringify({ model: 'claude-test', max_tokens: 4096, stream: true, messages: [{ role: 'user', content: 'think' }] }),
      });
      const events = (await readSseRecords(response)).map((record) => JSON.parse(record.data) as { type: string; index?: number });
      expect(events.filter((event) => event.type === 'message_start')).toHaveLength(1);
      const starts = events.filter((event) => event.type === 'content_block_start').map((event) => event.index);
      const stops = events.filter((event) => event.type === 'content_block_stop').map((event) => event.index);
      expect(starts).toEqual([0, 1]);
      expect([...stops].sort()).toEqual([0, 1]);
      expect(events.at(-1)?.type).toBe('message_stop');
      expect(harness.upstream.requests).toHaveLength(2);
    } finally {
      await harness.close();
    }
  });

  it('an attempt retried before any output leaves no byte behind: the client gets the second attempt only', async () => {
    const harness = await startHarness();
    try {
      harness.upstream.messages.enqueue(scenario.messages().text('never shown').usage({ input: 1, output: 1 }).eof({ afterEvents: 1 }), scenario.messages().text('Shown once.').usage({ input: 1, output: 2 }));
      const response = await fetch(`${harness.url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': 'k' },
        body: JSON.stringify({ model: 'claude-test', max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
      });
      const records = await readSseRecords(response);
      expect(records.filter((record) => record.event === 'message_start')).toHaveLength(1);
      expect(records.map((record) => record.data).join('')).not.toContain('never shown');
      expect(harness.upstream.requests).toHaveLength(2);
    } finally {
      await harness.close();
    }
  });
});
