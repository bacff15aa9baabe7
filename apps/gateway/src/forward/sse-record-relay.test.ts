import { TurnError, type DecodedStreamEvent, type Protocol, type SseRecordObserver, type TurnEvent } from '@turnguard/core';
import { collectEvents, streamOfText } from '@turnguard/testkit';
import { describe, expect, it } from 'vitest';
import { selectAdapter } from '../protocol-routes.js';
import { SseRecordRelay } from './sse-record-relay.js';

// Unit tests of the relay's state machine; the e2e tests (relay-judged-records, raw-relay) drive it over real sockets.
const SEGMENT_1 = { segmentIndex: 0, requestId: 'r1' } as const;
const RECOVERY = { segmentIndex: 1, requestId: 'r2' } as const;

function startRelay(protocol: Protocol, clientWantsUsage = true) {
  const written: string[] = [];
  let dropped = 0;
  const relay = new SseRecordRelay({ protocol, clientWantsUsage, onDroppedAfterEnd: () => (dropped += 1) });
  return { relay, written, write: (chunk: string) => void written.push(chunk), dropped: () => dropped };
}

/** `text` decoded by the protocol's own decoder, its records told to `observer` as runTurn tells them. */
async function feed(protocol: Protocol, observer: SseRecordObserver<DecodedStreamEvent> | undefined, text: string): Promise<DecodedStreamEvent[]> {
  return collectEvents(selectAdapter(protocol).decodeStream(streamOfText(text), { records: observer }));
}

const chunk = (fields: Record<string, unknown>): string => `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'm', ...fields })}\n\n`;
const text = (content: string): string => chunk({ choices: [{ index: 0, delta: { content }, finish_reason: null }] });
const delta = (value: string): TurnEvent => ({ type: 'text-delta', id: 'text-0', delta: value });
const cut = new TurnError({ kind: 'stream_cut', code: 'STREAM_CUT', message: 'cut' });

describe('SseRecordRelay', () => {
  it('records of a body replaced before the first visible event are never written (a retried attempt)', async () => {
    const { relay, written, write } = startRelay('chat');
    await feed('chat', relay.observeBody(SEGMENT_1), text('attempt one'));
    await feed('chat', relay.observeBody(SEGMENT_1), text('attempt two'));
    relay.start([delta('attempt two')], write);
    expect(written).toEqual([text('attempt two')]);
  });

  it('holds records until the first visible event, then writes each as it is reported, each once', async () => {
    const { relay, written, write } = startRelay('chat');
    const observer = relay.observeBody(SEGMENT_1);
    await feed('chat', observer, text('a'));
    expect(written).toEqual([]);
    relay.start([delta('a')], write);
    expect(written).toEqual([text('a')]);
    observer!.onRecord({ raw: text('b'), event: undefined, data: text('b').slice(6, -2), events: [delta('b')], atEndOfBody: false });
    expect(written).toEqual([text('a'), text('b')]);
  });

  it('a final error: the error record is never written; the encoder continues the same response, then [DONE] only', async () => {
    const { relay, written, write } = startRelay('chat');
    const observer = relay.observeBody(SEGMENT_1);
    await feed('chat', observer, text('Hello ') + 'data: {"error":{"message":"upstream broke","code":"boom"}}\n\n' + text('late'));
    relay.start([delta('Hello ')], write);
    relay.event({ type: 'usage', usage: { inputTokens: 1, outputTokens: 1, cachedInputTokens: undefined, cacheCreationInputTokens: undefined, reasoningTokens: undefined, totalTokens: 2 } });
    relay.event({ type: 'error', error: cut });
    relay.finish();
    const all = written.join('');
    expect(all.startsWith(text('Hello '))).toBe(true);
    expect(all).not.toContain('boom');
    expect(all).not.toContain('late');
    // After output the failure is written in the shape clients treat as final (R8.10), keeping its code.
    expect(all).toMatch(/data: \{"error":\{"message":"[^"]*","type":"invalid_request_error","param":null,"code":"STREAM_CUT"\}\}\n\ndata: \[DONE\]\n\n$/s);
    expect(all.match(/data: /g)).toHaveLength(3);
  });

  it('chat: a usage chunk the client did not ask for is left out, judged by its events', async () => {
    const { relay, written, write } = startRelay('chat', false);
    await feed('chat', relay.observeBody(SEGMENT_1), text('a') + chunk({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }) + chunk({ choices: [], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } }) + 'data: [DONE]\n\n');
    relay.start([delta('a')], write);
    relay.finish();
    expect(written.join('')).not.toContain('"usage"');
    expect(written.join('').endsWith('data: [DONE]\n\n')).toBe(true);
    expect(written.join('').match(/\[DONE\]/g)).toHaveLength(1);
  });

  it('records after the end are dropped and counted; a missing [DONE] is supplied', async () => {
    const { relay, written, write, dropped } = startRelay('chat');
    await feed('chat', relay.observeBody(SEGMENT_1), text('a') + chunk({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }) + text('late') + 'data: {broken\n\n');
    relay.start([delta('a')], write);
    relay.finish();
    expect(written.join('')).not.toContain('late');
    expect(written.join('')).not.toContain('broken');
    expect(written.at(-1)).toBe('data: [DONE]\n\n');
    expect(dropped()).toBe(2);
  });

  it('Responses: a splice continues the relayed sequence numbers and the items the client has, never a second output_item.added', async () => {
    const { relay, written, write } = startRelay('responses');
    const wire =
      'event: response.created\ndata: {"type":"response.created","sequence_number":0,"response":{"id":"resp_1","model":"m","created_at":1}}\n\n' +
      'event: response.output_item.added\ndata: {"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"id":"rs_1","type":"reasoning","summary":[]}}\n\n' +
      'event: response.reasoning_summary_text.delta\ndata: {"type":"response.reasoning_summary_text.delta","sequence_number":41,"item_id":"rs_1","output_index":0,"summary_index":0,"delta":"hm"}\n\n';
    await feed('responses', relay.observeBody(SEGMENT_1), wire);
    relay.start([{ type: 'reasoning-start', id: 'rs_1' }, { type: 'reasoning-delta', id: 'rs_1', delta: 'hm' }], write);
    relay.event({ type: 'recovery-start', recoveryId: 'r' });
    expect(relay.observeBody(RECOVERY)).toBeUndefined();
    relay.event({ type: 'text-start', id: 'recovery-msg' });
    relay.event({ type: 'text-delta', id: 'recovery-msg', delta: 'Answer' });
    relay.event({ type: 'finish', finishReason: { unified: 'stop', raw: 'completed' } });
    relay.finish();
    const records = written.join('').split('\n\n').filter((record) => record !== '');
    const spliced = records.slice(3);
    const numbers = spliced.map((record) => Number(/"sequence_number":(\d+)/.exec(record)![1]));
    expect(numbers).toEqual(numbers.map((_, index) => 42 + index));
    expect(records.filter((record) => record.startsWith('event: response.created'))).toHaveLength(1);
    const added = records.filter((record) => record.startsWith('event: response.output_item.added')).map((record) => /"output_index":(\d+)/.exec(record)![1]);
    expect(added).toEqual(['0', '1']);
    expect(records.at(-1)).toMatch(/^event: response\.completed\n/);
  });

  it('a turn that ends complete with no relayed terminal frame is finished by the encoder', async () => {
    const { relay, written, write } = startRelay('messages');
    const start = 'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","model":"m","usage":{"input_tokens":1}}}\n\n';
    await feed('messages', relay.observeBody(SEGMENT_1), start);
    relay.start([{ type: 'text-start', id: 't' }, { type: 'text-delta', id: 't', delta: 'x' }], write);
    relay.event({ type: 'finish', finishReason: { unified: 'stop', raw: 'end_turn' } });
    relay.finish();
    const events = written.join('').split('\n\n').filter((record) => record !== '').map((record) => record.split('\n')[0]);
    expect(events).toEqual(['event: message_start', 'event: message_delta', 'event: message_stop']);
  });

  it('a failure inside a record callback is never thrown into the decoder: the relay’s own loop gets it', async () => {
    const { relay, written } = startRelay('chat');
    const observer = relay.observeBody(SEGMENT_1)!;
    relay.start([delta('x')], () => {
      throw new Error('socket write failed');
    });
    expect(() => observer.onRecord({ raw: text('x'), event: undefined, data: '{}', events: [delta('x')], atEndOfBody: false })).not.toThrow();
    expect(() => relay.event(delta('y'))).toThrow('socket write failed');
    expect(written).toEqual([]);
  });

  it('a turn whose first visible event is a heartbeat is encoded throughout', async () => {
    const { relay, written, write } = startRelay('messages');
    await feed('messages', relay.observeBody(SEGMENT_1), 'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1"}}\n\n');
    relay.start([{ type: 'heartbeat', waitedMs: 1, remainingMs: 2 }], write);
    expect(written.join('')).toMatch(/^event: ping\n/);
    expect(written.join('')).not.toContain('msg_1');
  });
});

describe('SseRecordRelay: the turn comment before the protocol’s end (R12.4)', () => {
  const COMMENT = ': turnguard physical-requests=1 recovered=false usage-complete=true\n\n';
  const finishChunk = chunk({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });

  it('content goes out as it is reported; only [DONE] waits, and the comment goes before it', async () => {
    const { relay, written, write } = startRelay('chat');
    const observer = relay.observeBody(SEGMENT_1);
    await feed('chat', observer, text('a'));
    relay.start([delta('a')], write);
    observer!.onRecord({ raw: text('b'), event: undefined, data: text('b').slice(6, -2), events: [delta('b')], atEndOfBody: false });
    observer!.onRecord({ raw: finishChunk, event: undefined, data: finishChunk.slice(6, -2), events: [{ type: 'finish', finishReason: { unified: 'stop', raw: 'stop' } }], atEndOfBody: false });
    observer!.onRecord({ raw: 'data: [DONE]\n\n', event: undefined, data: '[DONE]', events: [], atEndOfBody: false });
    expect(written).toEqual([text('a'), text('b'), finishChunk]);
    relay.finish(COMMENT);
    expect(written.join('')).toBe(text('a') + text('b') + finishChunk + COMMENT + 'data: [DONE]\n\n');
  });

  it('records that came in one read before the first visible event: everything but the end goes out at start', async () => {
    const { relay, written, write } = startRelay('chat');
    await feed('chat', relay.observeBody(SEGMENT_1), text('all at once') + finishChunk + 'data: [DONE]\n\n');
    relay.start([delta('all at once')], write);
    expect(written.join('')).toBe(text('all at once') + finishChunk);
    relay.finish(COMMENT);
    expect(written.join('')).toBe(text('all at once') + finishChunk + COMMENT + 'data: [DONE]\n\n');
  });

  it('an encoded ending (after a final error): the comment before its last record', async () => {
    const { relay, written, write } = startRelay('messages');
    relay.start([{ type: 'heartbeat', waitedMs: 1, remainingMs: 1 }], write);
    relay.event({ type: 'error', error: cut });
    expect(written.join('')).not.toContain('event: error');
    relay.finish(COMMENT);
    const all = written.join('');
    expect(all.indexOf(COMMENT)).toBeLessThan(all.indexOf('event: error'));
    expect(all.endsWith('\n\n')).toBe(true);
  });
});
