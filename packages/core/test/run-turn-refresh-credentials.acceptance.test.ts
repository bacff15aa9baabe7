/**
 * R1.7: `refreshCredentials` may return the new credentials; runTurn
 * sends them from the next physical request on (the retry and any recovery
 * segment), on all three protocols. A value of the wrong shape is a typed
 * error, never a key silently dropped. msw-driven; the physical headers are asserted.
 */
import { scenario } from '@turnguard/testkit';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { startUpstream } from './msw-upstream.js';
import { collectEvents, enqueue, PROTOCOLS, startTurn, textOf } from './turn-harness.js';

const { upstream, server } = startUpstream();
afterEach(() => upstream.reset());
afterAll(() => server.close());

const KEY_HEADER = { chat: 'authorization', messages: 'x-api-key', responses: 'authorization' } as const;
const sentKey = (protocol: (typeof PROTOCOLS)[number], index: number) => upstream.requestsFor(protocol)[index]!.headers[KEY_HEADER[protocol]];

describe.each(PROTOCOLS)('refreshCredentials returning new credentials over %s (R1.7)', (protocol) => {
  it('the retry after a 401 carries the returned key and headers', async () => {
    enqueue(upstream, protocol, scenario.for(protocol).httpError(401), scenario.for(protocol).text('Authorised now.'));
    const refreshCredentials = vi.fn(async () => ({ apiKey: 'sk-fresh', headers: { 'x-token-generation': '2' } }));
    const { run } = startTurn(protocol, { retry: { initialDelayMs: 0, jitterRatio: 0, refreshCredentials } });
    const events = await collectEvents(run);
    expect((await run.result).outcome).toBe('ok');
    expect(textOf(events)).toBe('Authorised now.');
    expect(refreshCredentials).toHaveBeenCalledTimes(1);
    expect(sentKey(protocol, 0)).toContain('sk-test');
    expect(sentKey(protocol, 1)).toContain('sk-fresh');
    expect(upstream.requestsFor(protocol)[1]!.headers['x-token-generation']).toBe('2');
    // The session headers of the target are still sent (R4.6).
    expect(upstream.requestsFor(protocol)[1]!.headers['x-session-id']).toBe('session-42');
  });

  it('a hook returning nothing keeps the target as it was', async () => {
    enqueue(upstream, protocol, scenario.for(protocol).httpError(401), scenario.for(protocol).text('Same key.'));
    const { run } = startTurn(protocol, { retry: { initialDelayMs: 0, jitterRatio: 0, refreshCredentials: async () => undefined } });
    await collectEvents(run);
    expect((await run.result).outcome).toBe('ok');
    expect(sentKey(protocol, 1)).toContain('sk-test');
  });

  it('a returned value of the wrong shape fails the turn with a typed error and sends nothing more', async () => {
    enqueue(upstream, protocol, scenario.for(protocol).httpError(401), scenario.for(protocol).text('never'));
    const refreshCredentials = async () => ({ apiKey: 42 }) as never;
    const { run } = startTurn(protocol, { retry: { initialDelayMs: 0, jitterRatio: 0, refreshCredentials } });
    await collectEvents(run);
    const result = await run.result;
    expect(result.error).toMatchObject({ kind: 'auth', details: expect.objectContaining({ credentialRefreshFailed: true }) });
    expect((result.error?.cause as { code?: string }).code).toBe('INVALID_REFRESHED_CREDENTIALS');
    expect(upstream.requestsFor(protocol)).toHaveLength(1);
  });
});
