import { createServer as createHttpServer } from 'node:http';
import { createServer, type AddressInfo, type Server } from 'node:net';
import type { EventSourceMessage } from 'eventsource-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway } from './create-gateway.js';
import { startFaultGateway, type FaultGateway } from './testing/fault-gateway.test-helper.js';
import { RecordingSink } from './testing/gateway-harness.test-helper.js';
import { cutAt, type UpstreamEnding } from './testing/fault-upstream.test-helper.js';
import { chat, LINE_ENDS, messages, parseSseBody, ResponsesWire, sseRecord } from './testing/sse-wire.test-helper.js';

// R8.13: the relay forwards only whole records the core framed (LF, CR and CRLF alike), each once,
// in order, judged by their events; after the protocol's terminal frame the client gets exactly its
// proper end. Real sockets both ways, an upstream that writes each piece on its own.
let faults: FaultGateway;
beforeAll(async () => {
  faults = await startFaultGateway();
});
afterAll(() => faults.close());

type Json = Record<string, any>;

async function readRecords(response: Response): Promise<EventSourceMessage[]> {
  return parseSseBody(await response.text());
}

function chatChunks(records: EventSourceMessage[]): Array<Json | '[DONE]'> {
  return records.map((record) => (record.data === '[DONE]' ? '[DONE]' : (JSON.parse(record.data) as Json)));
}

function chatText(chunks: Array<Json | '[DONE]'>): string[] {
  return chunks.flatMap((chunk) => (chunk !== '[DONE]' && typeof chunk.choices?.[0]?.delta?.content === 'string' && chunk.choices[0].delta.content !== '' ? [chunk.choices[0].delta.content as string] : []));
}

const isChatError = (chunk: Json | '[DONE]'): boolean => chunk !== '[DONE]' && chunk.error !== undefined;

describe('R8.13 CR line ends: the last whole record before a cut reaches the client (R8.12, R1.2)', () => {
  for (const ending of ['fin', 'rst'] as UpstreamEnding[]) {
    it(`chat, ${ending}: role, A-, B-, LAST, then the cut — all three, then the error ending, one request`, async () => {
      const heads = faults.upstream.heads.length;
      faults.upstream.plans.push({ pieces: [chat.role('cr') + chat.text('A-', 'cr'), chat.text('B-', 'cr'), chat.text('LAST', 'cr')], ending });
      const chunks = chatChunks(await readRecords(await faults.post('chat')));
      expect(chatText(chunks)).toEqual(['A-', 'B-', 'LAST']);
      expect(chunks.filter(isChatError)).toHaveLength(1);
      expect(chunks.at(-1)).toBe('[DONE]');
      expect(faults.upstream.heads.length - heads).toBe(1);
    });

    it(`chat, ${ending}: a record that was the only output is output: no resend (R1.2)`, async () => {
      const heads = faults.upstream.heads.length;
      faults.upstream.plans.push({ pieces: [chat.role('cr'), chat.text('LAST', 'cr')], ending }, { pieces: [chat.role(), chat.text('RESENT'), chat.finish(), chat.done()] });
      const chunks = chatChunks(await readRecords(await faults.post('chat')));
      expect(chatText(chunks)).toEqual(['LAST']);
      expect(chunks.filter(isChatError)).toHaveLength(1);
      expect(faults.upstream.heads.length - heads).toBe(1);
      faults.upstream.plans.length = 0;
    });

    it(`chat, ${ending}: a complete stream whose terminal frame was the last record is complete (R8.12)`, async () => {
      const turns = faults.sink.turns.length;
      faults.upstream.plans.push({ pieces: [chat.role('cr') + chat.text('A-', 'cr'), chat.finish('cr')], ending });
      const chunks = chatChunks(await readRecords(await faults.post('chat')));
      expect(chatText(chunks)).toEqual(['A-']);
      expect(chunks.filter(isChatError)).toEqual([]);
      expect(chunks.filter((chunk) => chunk !== '[DONE]' && chunk.choices?.[0]?.finish_reason === 'stop')).toHaveLength(1);
      expect(chunks.at(-1)).toBe('[DONE]');
      await faults.sink.waitForTurns(turns + 1);
      expect(faults.sink.turns.at(-1)?.outcome).toBe('ok');
    });
  }
});

describe('R8.13 a record split across writes goes out once, and only whole records go out', () => {
  for (const eol of LINE_ENDS) {
    it(`chat, ${eol}: X-, Y-, Z- split inside lines and between line ends — each once, every data line JSON`, async () => {
      const records = [chat.role(eol), chat.text('X-', eol), chat.text('Y-', eol), chat.text('Z-', eol), chat.finish(eol), chat.done(eol)];
      const text = records.join('');
      // Cuts: inside each record's data, and between the two line ends closing it (after its first CR).
      const offsets: number[] = [];
      let at = 0;
      for (const record of records) {
        offsets.push(at + 9, at + record.length - (eol === 'crlf' ? 2 : 1));
        at += record.length;
      }
      faults.upstream.plans.push({ pieces: cutAt(text, offsets) });
      const chunks = chatChunks(await readRecords(await faults.post('chat')));
      expect(chatText(chunks)).toEqual(['X-', 'Y-', 'Z-']);
      expect(chunks.filter(isChatError)).toEqual([]);
      expect(chunks.filter((chunk) => chunk === '[DONE]')).toHaveLength(1);
    });

    it(`messages, ${eol}: content_block_stop split across writes is sent once`, async () => {
      const records = [messages.start(eol), messages.blockStart(0, 'text', eol), messages.text(0, 'Hi', eol), messages.blockStop(0, eol), messages.delta(eol), messages.stop(eol)];
      const text = records.join('');
      const stopAt = text.indexOf('content_block_stop');
      faults.upstream.plans.push({ pieces: cutAt(text, [stopAt, stopAt + 40, text.indexOf('message_delta')]) });
      const received = await readRecords(await faults.post('messages'));
      expect(received.map((record) => record.event)).toEqual(['message_start', 'content_block_start', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop']);
    });
  }
});

describe('R8.13 after the terminal frame the client gets exactly the protocol’s proper end', () => {
  it('chat: a second [DONE], finish chunks and text after [DONE] are dropped and counted (R6.1 warning)', async () => {
    const samples = faults.sink.samples.length;
    const turns = faults.sink.turns.length;
    faults.upstream.plans.push({ pieces: [chat.role() + chat.text('A'), chat.finish(), chat.usage(), chat.done(), chat.done(), chat.finish(), chat.text('late')] });
    const chunks = chatChunks(await readRecords(await faults.post('chat', { stream_options: { include_usage: true } })));
    expect(chatText(chunks)).toEqual(['A']);
    expect(chunks.filter((chunk) => chunk === '[DONE]')).toHaveLength(1);
    expect(chunks.at(-1)).toBe('[DONE]');
    expect(chunks.filter((chunk) => chunk !== '[DONE]' && chunk.choices?.[0]?.finish_reason === 'stop')).toHaveLength(1);
    expect(chunks.filter((chunk) => chunk !== '[DONE]' && Array.isArray(chunk.choices) && chunk.choices.length === 0)).toHaveLength(1);
    await faults.sink.waitForTurns(turns + 1);
    expect(faults.sink.samples.slice(samples).flatMap((sample) => sample.warnings)).toContain('relay_dropped_after_end');
  });

  it('chat: an invalid JSON line after finish_reason is dropped and [DONE] still ends the stream', async () => {
    faults.upstream.plans.push({ pieces: [chat.role() + chat.text('A'), chat.finish(), 'data: {not json\n\n', chat.done()] });
    const response = await faults.post('chat');
    const records = await readRecords(response);
    expect(records.map((record) => record.data)).not.toContain('{not json');
    const chunks = chatChunks(records);
    expect(chunks.at(-1)).toBe('[DONE]');
    expect(chunks.filter(isChatError)).toEqual([]);
  });

  it('chat: half a record after the terminal frame, then FIN: never forwarded, one [DONE]', async () => {
    faults.upstream.plans.push({ pieces: [chat.role() + chat.text('A'), chat.finish(), 'data: [DO'], ending: 'fin' });
    const text = await (await faults.post('chat')).text();
    expect(text).not.toContain('[DO\n');
    expect(text.match(/\[DONE\]/g)).toHaveLength(1);
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
  });

  it('messages: a second message_stop, and records after it, are dropped', async () => {
    faults.upstream.plans.push({ pieces: [messages.start() + messages.blockStart(0, 'text') + messages.text(0, 'Hi'), messages.blockStop(0) + messages.delta(), messages.stop(), messages.stop(), messages.text(0, 'late')] });
    const received = await readRecords(await faults.post('messages'));
    expect(received.map((record) => record.event)).toEqual(['message_start', 'content_block_start', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop']);
  });

  it('responses: a second response.completed is dropped', async () => {
    const wire = new ResponsesWire();
    faults.upstream.plans.push({ pieces: [wire.created() + wire.messageAdded(0, 'msg_1'), wire.text(0, 'msg_1', 'Hi'), wire.messageDone(0, 'msg_1', 'Hi'), wire.completed(), wire.completed()] });
    const received = await readRecords(await faults.post('responses'));
    expect(received.filter((record) => record.event === 'response.completed')).toHaveLength(1);
    expect(received.at(-1)?.event).toBe('response.completed');
  });
});

describe('R8.13 a missing end is supplied when the answer was complete (R8.12)', () => {
  it('chat: finish_reason but no [DONE]: the client gets [DONE]', async () => {
    const turns = faults.sink.turns.length;
    faults.upstream.plans.push({ pieces: [chat.role() + chat.text('A'), chat.finish()] });
    const chunks = chatChunks(await readRecords(await faults.post('chat')));
    expect(chunks.at(-1)).toBe('[DONE]');
    expect(chunks.filter(isChatError)).toEqual([]);
    await faults.sink.waitForTurns(turns + 1);
    expect(faults.sink.turns.at(-1)?.outcome).toBe('ok');
  });

  for (const ending of ['end', 'fin', 'rst'] as UpstreamEnding[]) {
    it(`messages, ${ending}: a message_delta with stop_reason but no message_stop: the client gets message_stop`, async () => {
      const turns = faults.sink.turns.length;
      faults.upstream.plans.push({ pieces: [messages.start() + messages.blockStart(0, 'text') + messages.text(0, 'Hi'), messages.blockStop(0), messages.delta()], ending });
      const received = await readRecords(await faults.post('messages'));
      expect(received.map((record) => record.event)).toEqual(['message_start', 'content_block_start', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop']);
      await faults.sink.waitForTurns(turns + 1);
      expect(faults.sink.turns.at(-1)?.outcome).toBe('ok');
    });
  }
});

describe('R8.13 after an error event only the protocol’s own closing follows (R8.3)', () => {
  it('chat: a recovery that answers only whitespace ends with the error chunk, then [DONE] — no usage chunk between', async () => {
    faults.upstream.plans.push(
      { pieces: [chat.role() + chat.reasoning('thinking '.repeat(40)), chat.reasoning('more')] },
      { pieces: [chat.role() + chat.text('   '), chat.finish(), chat.usage(), chat.done()] },
    );
    const chunks = chatChunks(await readRecords(await faults.post('chat', { stream_options: { include_usage: true } })));
    const errorAt = chunks.findIndex(isChatError);
    expect(errorAt).toBeGreaterThan(0);
    expect(chunks.slice(errorAt + 1)).toEqual(['[DONE]']);
  });
});

describe('R8.7 a splice continues exactly what the client has', () => {
  it('responses: a message item added with no content yet when the thinking stream is cut — the recovery’s item comes after it, and it is closed first', async () => {
    const wire = new ResponsesWire();
    faults.upstream.plans.push(
      {
        pieces: [
          wire.created(),
          wire.reasoningAdded(0, 'rs_1'),
          wire.reasoning(0, 'rs_1', 'thinking '.repeat(20)),
          wire.event('response.output_item.done', { output_index: 0, item: { id: 'rs_1', type: 'reasoning', summary: [] } }),
          wire.event('response.output_item.added', { output_index: 1, item: { id: 'msg_1', type: 'message', status: 'in_progress', role: 'assistant', content: [] } }),
        ],
      },
      { pieces: [new ResponsesWire().created() + new ResponsesWire().messageAdded(0, 'msg_r'), new ResponsesWire().text(0, 'msg_r', 'Recovered.'), new ResponsesWire().completed()] },
    );
    const received = await readRecords(await faults.post('responses'));
    expect(faults.upstream.heads.at(-1)?.body).toBeDefined();
    const items = received.filter((record) => /^response\.output_item\.(added|done)$/.test(record.event ?? '')).map((record) => `${record.event!.slice(21)}:${(JSON.parse(record.data) as Json).output_index}`);
    // Indices only grow; segment 1's open message item is done before the recovery's item is added (R8.7).
    expect(items).toEqual(['added:0', 'done:0', 'added:1', 'done:1', 'added:2', 'done:2']);
    expect(received.at(-1)?.event).toBe('response.completed');
  });

  for (const eol of LINE_ENDS) {
    it(`responses (${eol}) after a 429, one record per write, then an invalid record: each output_index added once`, async () => {
      const wire = new ResponsesWire(eol);
      // A second item starts after output reached the client, one record per write, then an undecodable record.
      const pieces = [
        wire.created(),
        wire.reasoningAdded(0, 'rs_1'),
        wire.reasoning(0, 'rs_1', 'hmm '),
        wire.event('response.output_item.done', { output_index: 0, item: { id: 'rs_1', type: 'reasoning', summary: [] } }),
        wire.event('response.output_item.added', { output_index: 1, item: { id: 'msg_1', type: 'message', status: 'in_progress', role: 'assistant', content: [] } }),
        wire.event('response.content_part.added', { item_id: 'msg_1', output_index: 1, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } }),
        wire.text(1, 'msg_1', 'Answer'),
        sseRecord('{broken', eol, 'response.output_text.delta'),
      ];
      const gapMs = 2;
      faults.upstream.plans.push({ status: 429, headers: { 'retry-after-ms': '1' }, pieces: ['{"error":{"message":"slow down","type":"rate_limit_error"}}'] }, { pieces, gapMs });
      const received = await readRecords(await faults.post('responses'));
      const added = received.filter((record) => record.event === 'response.output_item.added').map((record) => (JSON.parse(record.data) as Json).output_index);
      expect(added).toEqual([0, 1]);
      expect(received.filter((record) => record.event === 'response.created')).toHaveLength(1);
      expect(received.at(-1)?.event).toBe('response.failed');
    });
  }
});

describe('R6.1 an attempt that ended before its response head is one sample, and says so', () => {
  it('a request the upstream never answered (the client left while it was in flight): one sample, noResponseHead', async () => {
    // An upstream that takes the connection and the request's bytes but never parses a head nor answers.
    let requestArrived!: () => void;
    const received = new Promise<void>((resolve) => (requestArrived = resolve));
    const blackHole: Server = createServer((socket) => socket.once('data', () => requestArrived()));
    await new Promise<void>((resolve) => blackHole.listen(0, '127.0.0.1', resolve));
    const port = (blackHole.address() as AddressInfo).port;
    const sink = new RecordingSink();
    const gateway = createGateway({ port: 0, upstreams: { chat: `http://127.0.0.1:${port}/v1`, messages: `http://127.0.0.1:${port}`, responses: `http://127.0.0.1:${port}/v1` }, env: {}, stats: sink, retry: { maxRetries: 0 } });
    await gateway.listen();
    try {
      const client = new AbortController();
      const answered = fetch(`${gateway.url}/v1/chat/completions`, {
        method: 'POST',
        signal: client.signal,
        headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
        body: JSON.stringify({ model: 'm', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
      }).catch(() => undefined);
      await received;
      client.abort();
      await answered;
      await sink.waitForTurns(1);
      expect(sink.samples).toHaveLength(1);
      expect(sink.samples[0]).toMatchObject({ ok: false, noResponseHead: true });
      expect(sink.turns[0]?.physicalRequests).toBe(1);
    } finally {
      await gateway.close();
      blackHole.close();
    }
  });

  it('a refused connection, retried: one sample per attempt, each with noResponseHead; an answered one has none', async () => {
    const turns = faults.sink.turns.length;
    const samples = faults.sink.samples.length;
    faults.upstream.plans.push({ status: 503, pieces: ['{"error":{"message":"busy","type":"server_error"}}'] }, { pieces: [chat.role() + chat.text('A'), chat.finish(), chat.done()] });
    await (await faults.post('chat')).text();
    await faults.sink.waitForTurns(turns + 1);
    expect(faults.sink.samples.slice(samples).map((sample) => (sample as { noResponseHead?: boolean }).noResponseHead)).toEqual([undefined, undefined]);

    const closed = createHttpServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const sink = new RecordingSink();
    const gateway = createGateway({ port: 0, upstreams: { chat: `http://127.0.0.1:${port}/v1`, messages: `http://127.0.0.1:${port}`, responses: `http://127.0.0.1:${port}/v1` }, env: {}, stats: sink, retry: { initialDelayMs: 1, maxDelayMs: 2, maxRetries: 2 } });
    await gateway.listen();
    try {
      const response = await fetch(`${gateway.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer k' }, body: JSON.stringify({ model: 'm', stream: true, messages: [{ role: 'user', content: 'hi' }] }) });
      expect(response.status).toBeGreaterThanOrEqual(500);
      await sink.waitForTurns(1);
      expect(sink.samples).toHaveLength(3);
      expect(sink.samples.every((sample) => (sample as { noResponseHead?: boolean }).noResponseHead === true)).toBe(true);
    } finally {
      await gateway.close();
    }
  });
});
