import { describe, expect, it } from 'vitest';
import { withRetry } from './with-retry.js';
import type { DebugDump } from './debug-dump.js';
import { classifyHttpError } from '../errors/classify-http-error.js';
import type { TurnError } from '../errors/turn-error.js';
import { createScriptedOperation, settle } from './scripted-operation.test-helper.js';

const badRequestBody = JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: 'messages.1: bad block' } });
const request = {
  model: 'claude-sonnet-4-5',
  max_tokens: 1024,
  messages: [{ role: 'user', content: 'hello' }],
  headers: { 'x-api-key': 'sk-ant-api03-0123456789abcdefghij', 'anthropic-version': '2023-06-01' },
};

describe('withRetry 400 debug dump (R1.10)', () => {
  it('R1.10 writes one redacted dump for a 400 and attaches its path', async () => {
    const dumps: DebugDump[] = [];
    const script = createScriptedOperation([classifyHttpError(400, { 'request-id': 'req_400' }, badRequestBody)]);
    const outcome = await settle(
      withRetry(script.operation, {
        now: () => Date.parse('2026-03-01T12:00:00Z'),
        debugDump: {
          describeRequest: () => request,
          write: async (dump) => {
            dumps.push(dump);
            return '/tmp/turnguard/dump.json';
          },
        },
      }),
    );
    const error = (outcome as { error: TurnError }).error;
    expect([error.status, error.requestId, error.details['debugDumpPath']]).toEqual([400, 'req_400', '/tmp/turnguard/dump.json']);
    expect(dumps).toEqual([
      {
        version: 1,
        createdAt: '2026-03-01T12:00:00.000Z',
        status: 400,
        kind: 'invalid_request',
        code: 'INVALID_REQUEST',
        requestId: 'req_400',
        request: {
          model: 'claude-sonnet-4-5',
          max_tokens: 1024,
          messages: [{ role: 'user', content: 'hello' }],
          headers: { 'anthropic-version': '2023-06-01' },
        },
        errorBody: { type: 'error', error: { type: 'invalid_request_error', message: 'messages.1: bad block' } },
      },
    ]);
  });

  it('R1.10 no dump for other statuses, for a context-overflow 400, or without the option', async () => {
    let writes = 0;
    const debugDump = {
      describeRequest: () => request,
      write: async () => {
        writes += 1;
        return 'p';
      },
    };
    await settle(withRetry(createScriptedOperation([classifyHttpError(404, undefined, '')]).operation, { debugDump }));
    const overflow = classifyHttpError(400, undefined, JSON.stringify({ error: { message: 'input length and `max_tokens` exceed context limit: 1 + 2 > 3' } }));
    await settle(withRetry(createScriptedOperation([overflow]).operation, { debugDump }));
    const withoutOption = await settle(withRetry(createScriptedOperation([classifyHttpError(400, undefined, '')]).operation));
    expect(writes).toBe(0);
    expect((withoutOption as { error: TurnError }).error.details['debugDumpPath']).toBeUndefined();
  });

  it('R1.10 a failing writer never hides the 400', async () => {
    const original = classifyHttpError(400, undefined, badRequestBody);
    const outcome = await settle(
      withRetry(createScriptedOperation([original]).operation, {
        debugDump: {
          describeRequest: () => request,
          write: async () => {
            throw new Error('disk full');
          },
        },
      }),
    );
    const error = (outcome as { error: TurnError }).error;
    expect([error.status, error.message, error.details['debugDumpFailed']]).toEqual([400, original.message, true]);
  });
});
