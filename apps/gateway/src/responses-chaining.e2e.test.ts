import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { frameRecordedLines, readRecordedStreams } from '@turnguard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from './create-gateway.js';

// Decision 0211: after a recovered Responses turn the client chains from the id it saw (segment 1's);
// the gateway sends upstream the recovery response's id, which holds the answer the client got.
const recording = readRecordedStreams('responses').find((stream) => stream.name === 'xai-text-streaming.1')!;
const upstreamId = (JSON.parse(recording.lines[0]!) as { response: { id: string } }).response.id;
const withId = (lines: readonly string[], id: string): string => frameRecordedLines('responses', lines).split(upstreamId).join(id);
/** Segment 1: the recording up to its reasoning summary, then the connection ends (a reasoning-only cut). */
const cutLines = recording.lines.slice(0, recording.lines.findIndex((line) => line.includes('"response.reasoning_summary_text.done"')));

let replies: string[] = [];
const bodies: Array<Record<string, unknown>> = [];
let upstream: Server;
let gateway: Gateway;

beforeAll(async () => {
  upstream = createServer((request, response) => {
    let text = '';
    request.setEncoding('utf8');
    request.on('data', (part: string) => (text += part));
    request.on('end', () => {
      bodies.push(JSON.parse(text) as Record<string, unknown>);
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.end(replies.shift() ?? '');
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`;
  gateway = createGateway({ port: 0, upstreams: { chat: base, responses: base, messages: base }, env: {} });
  await gateway.listen();
});
afterAll(async () => {
  await gateway.close();
  await new Promise<void>((resolve) => upstream.close(() => resolve()));
});

async function ask(extra: Record<string, unknown>): Promise<string> {
  const response = await fetch(`${gateway.url}/v1/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
    body: JSON.stringify({ model: 'grok-code-fast-1', input: 'hi', stream: true, ...extra }),
  });
  return response.text();
}

describe('Responses previous_response_id after a recovery (decision 0211)', () => {
  it('the client saw segment 1’s id; chaining from it reaches the recovery response upstream', async () => {
    expect(cutLines.length).toBeGreaterThan(3);
    replies = [withId(cutLines, 'resp_cut'), withId(recording.lines, 'resp_recovered')];
    const first = await ask({});
    expect(bodies).toHaveLength(2);
    expect(first).toContain('"id":"resp_cut"');
    expect(first).not.toContain('"id":"resp_recovered"');

    replies = [withId(recording.lines, 'resp_next')];
    await ask({ previous_response_id: 'resp_cut' });
    expect(bodies[2]?.previous_response_id).toBe('resp_recovered');

    // Ids the gateway did not recover, and requests with store: false, are forwarded as they are.
    replies = [withId(recording.lines, 'resp_other'), withId(cutLines, 'resp_cut2'), withId(recording.lines, 'resp_rec2'), withId(recording.lines, 'resp_x')];
    await ask({ previous_response_id: 'resp_next' });
    expect(bodies[3]?.previous_response_id).toBe('resp_next');
    await ask({ store: false });
    await ask({ previous_response_id: 'resp_cut2' });
    expect(bodies[6]?.previous_response_id).toBe('resp_cut2');
  });
});
