import { connect } from 'node:net';
import OpenAI from 'openai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../testing/gateway-harness.test-helper.js';

// Real sockets: the official openai SDK (undici fetch) → gateway → testkit loopback upstream.
let harness: Harness;

beforeEach(async () => {
  harness = await startHarness({ maxBodyBytes: 1024 * 1024 });
});
afterEach(async () => {
  await harness.close();
});

describe('R8.9 an over-large body gets a 413 the client can read', () => {
  it('the openai SDK with maxRetries 0 reads a 50 MB upload\'s 413 as an APIError, 10 times out of 10', async () => {
    const client = new OpenAI({ apiKey: 'sk-client-key', baseURL: harness.openAiBaseUrl, maxRetries: 0 });
    const huge = 'x'.repeat(50 * 1024 * 1024);
    const outcomes: string[] = [];
    for (let attempt = 0; attempt < 10; attempt += 1) {
      const error = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: huge }] }).catch((caught: unknown) => caught);
      outcomes.push(error instanceof OpenAI.APIError && !(error instanceof OpenAI.APIConnectionError) ? `${error.status} ${error.code}` : String(error));
    }
    expect(outcomes).toEqual(Array.from({ length: 10 }, () => '413 GATEWAY_BODY_TOO_LARGE'));
    expect(harness.upstream.requests).toHaveLength(0);
  }, 120_000);
});

/**
 * A client that reads nothing until its whole upload is written (many do):
 * if the gateway answered and closed early, its RST would discard the 413
 * in the client's receive buffer and fail the next write (EPIPE/ECONNRESET).
 */
function uploadThenRead(url: string, bytes: number, chunked: boolean): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let text = '';
    socket.setEncoding('utf8');
    socket.pause();
    socket.on('data', (part: string) => (text += part));
    socket.on('error', reject);
    socket.on('close', () => resolve(text));
    socket.once('connect', async () => {
      const framing = chunked ? 'transfer-encoding: chunked' : `content-length: ${bytes}`;
      socket.write(`POST /v1/chat/completions HTTP/1.1\r\nhost: ${hostname}:${port}\r\ncontent-type: application/json\r\nauthorization: Bearer k\r\n${framing}\r\n\r\n`);
      const piece = Buffer.alloc(1024 * 1024, 0x20);
      for (let sent = 0; sent < bytes; sent += piece.length) {
        const payload = chunked ? Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')]) : piece;
        if (!socket.write(payload)) await new Promise((drained) => socket.once('drain', drained));
      }
      if (chunked) socket.end('0\r\n\r\n');
      else socket.end();
      socket.resume();
    });
  });
}

describe('R8.9 the 413 survives a client that reads only after uploading', () => {
  it.each([
    ['content-length', false],
    ['chunked', true],
  ])('a 20 MB %s upload: the rest is drained, then the 413 is read in full', async (_name, chunked) => {
    const text = await uploadThenRead(harness.url, 20 * 1024 * 1024, chunked);
    expect(text).toMatch(/^HTTP\/1\.1 413/);
    expect(text).toContain('GATEWAY_BODY_TOO_LARGE');
    expect(harness.upstream.requests).toHaveLength(0);
  });
});

describe('R8.9 JSON nested too deep is a clear 400', () => {
  it('100k-deep JSON → 400 GATEWAY_JSON_TOO_DEEP, nothing upstream, the gateway stays up', async () => {
    const body = `{"model":"m","messages":[{"role":"user","content":"hi"}],"metadata":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    const response = await fetch(`${harness.openAiBaseUrl}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer k' }, body });
    expect(response.status).toBe(400);
    const error = (await response.json()) as { error: { code: string; message: string } };
    expect(error.error.code).toBe('GATEWAY_JSON_TOO_DEEP');
    expect(error.error.message).toContain('512 levels');
    expect(harness.upstream.requests).toHaveLength(0);
    expect((await fetch(`${harness.url}/healthz`)).status).toBe(200);
  });
});
