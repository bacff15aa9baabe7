import { afterEach, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createTempDirDebugDumpWriter } from './create-temp-dir-debug-dump-writer.js';
import { withRetry } from '../retry/with-retry.js';
import { classifyHttpError } from '../errors/classify-http-error.js';
import type { TurnError } from '../errors/turn-error.js';

const cleanups: string[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((path) => rm(path, { recursive: true, force: true })));
});

describe('createTempDirDebugDumpWriter (R1.10)', () => {
  it('R1.10 a 400 through withRetry leaves one 0600 JSON file without credentials', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'turnguard-test-'));
    cleanups.push(directory);
    const apiKey = 'sk-ant-api03-AAAAbbbbCCCCddddEEEE';
    const body = JSON.stringify({ error: { message: 'Invalid schema for function', type: 'invalid_request_error' } });
    const failure = classifyHttpError(400, { 'x-request-id': 'req_x' }, body);

    const outcome = await withRetry(
      async () => {
        throw failure;
      },
      {
        debugDump: {
          describeRequest: () => ({
            model: 'gpt-4o',
            messages: [{ role: 'user', content: 'hi' }],
            headers: { Authorization: `Bearer ${apiKey}`, 'OpenAI-Beta': 'x' },
            auth: { apiKey, refresh_token: 'r' },
          }),
          write: createTempDirDebugDumpWriter({ directory }),
        },
      },
    ).catch((error: unknown) => error as TurnError);

    const path = outcome.details['debugDumpPath'];
    expect(typeof path).toBe('string');
    expect(dirname(path as string)).toBe(directory);
    expect((await stat(path as string)).mode & 0o777).toBe(0o600);
    const text = await readFile(path as string, 'utf8');
    expect(text).not.toContain(apiKey);
    expect(text).not.toMatch(/authorization|refresh_token|apiKey/i);
    expect(JSON.parse(text)).toMatchObject({
      status: 400,
      requestId: 'req_x',
      request: { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }], headers: { 'OpenAI-Beta': 'x' }, auth: {} },
      errorBody: { error: { message: 'Invalid schema for function' } },
    });
  });

  it('R1.10 defaults to <os temp dir>/turnguard/', async () => {
    const write = createTempDirDebugDumpWriter();
    const path = await write({
      version: 1,
      createdAt: new Date().toISOString(),
      status: 400,
      kind: 'invalid_request',
      code: 'INVALID_REQUEST',
      requestId: undefined,
      request: {},
      errorBody: 'bad',
    });
    cleanups.push(path);
    expect(dirname(path)).toBe(join(tmpdir(), 'turnguard'));
    expect((await stat(path)).mode & 0o777).toBe(0o600);
  });
});
