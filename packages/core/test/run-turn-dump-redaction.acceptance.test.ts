/**
 * R1.10 / R8.5: a 400 dump never keeps the request's own
 * credentials, whatever their shape, even when the upstream echoes them.
 * Real sockets (testkit loopback upstream), the Node dump writer, real files.
 */
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scenario, startLoopbackUpstream, type LoopbackUpstream } from '@turnguard/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { createTempDirDebugDumpWriter } from '../src/node/index.js';
import { runTurn } from '../src/turn/run-turn.js';
import { adapterFor, buildNativeRequest, targetBaseUrl } from './turn-harness.js';

let upstream: LoopbackUpstream | undefined;
let directory: string | undefined;
afterEach(async () => {
  await upstream?.close();
  if (directory !== undefined) await rm(directory, { recursive: true, force: true });
  upstream = undefined;
  directory = undefined;
});

// Each a key the request carried; the upstream echoes it back in its 400 error text.
const SHAPES: Array<[string, { apiKey?: string; headers?: Record<string, string> }, string]> = [
  ['Groq gsk_', { apiKey: 'gsk_0123456789abcdefghijKLMNOP' }, 'gsk_0123456789abcdefghijKLMNOP'],
  ['32 hex', { apiKey: '0123456789abcdef0123456789abcdef' }, '0123456789abcdef0123456789abcdef'],
  ['Google AIza', { apiKey: 'AIzaSyA0123456789abcdefghijklmnopqrstu' }, 'AIzaSyA0123456789abcdefghijklmnopqrstu'],
  ['an unknown shape in a credential header', { apiKey: 'k', headers: { 'api-key': 'azure~proxy~token~42' } }, 'azure~proxy~token~42'],
  ['sk- OpenAI', { apiKey: 'sk-proj-0123456789abcdefghij' }, 'sk-proj-0123456789abcdefghij'],
];

describe('R1.10 dump redaction by the request\'s own credential values', () => {
  it.each(SHAPES)('%s echoed by the upstream never reaches the dump file nor the error message', async (_shape, credentials, secret) => {
    upstream = await startLoopbackUpstream();
    directory = await mkdtemp(join(tmpdir(), 'turnguard-dump-'));
    for (const echo of [`Incorrect API key provided: ${secret}.`, `upstream saw header Bearer ${secret} (mid-string)`]) {
      upstream.chat.enqueue(scenario.chat().httpError(400, { message: echo, code: 'invalid_api_key' }));
      const run = runTurn({
        adapter: adapterFor('chat'),
        request: buildNativeRequest('chat'),
        target: { baseUrl: targetBaseUrl('chat', upstream.baseUrl), ...credentials },
        retry: { initialDelayMs: 0, debugDump: { describeRequest: () => ({ model: 'm', note: `client said ${secret}` }), write: createTempDirDebugDumpWriter({ directory }) } },
      });
      const result = await run.result;
      const path = result.error?.details.debugDumpPath;
      expect(typeof path).toBe('string');
      expect(result.error?.message).not.toContain(secret);
      expect(result.error?.message).toContain('[redacted]');
      const text = await readFile(path as string, 'utf8');
      expect(text).not.toContain(secret);
      expect(text).toContain('[redacted]');
    }
    expect(await readdir(directory)).toHaveLength(2);
    // The upstream really got the credential (the dump is where it must not be).
    expect(JSON.stringify(upstream.requests.map((request) => request.headers))).toContain(secret);
  });
});
