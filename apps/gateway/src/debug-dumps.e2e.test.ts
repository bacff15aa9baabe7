import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scenario } from '@turnguard/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { loadGatewayConfig } from './config/load-config.js';
import { startHarness, type Harness } from './testing/gateway-harness.test-helper.js';

// R1.10 through the gateway, opt-in (`--debug-dumps <dir>`): one redacted file per upstream 400, mode 600.
// A key of no known shape (a proxy's own token): only redaction by the request's own value can catch it.
const SECRET = 'tgproxy-7f3a9c2e5b1d4a60';
const PROMPT_MARKER = 'the question the dump should show';
let harness: Harness | undefined;
let dir: string | undefined;

afterEach(async () => {
  await harness?.close();
  harness = undefined;
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

function ask(path: string, body: Record<string, unknown>): Promise<Response> {
  return fetch(`${harness!.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${SECRET}` },
    body: JSON.stringify(body),
  });
}

describe('gateway debug dumps (R1.10)', () => {
  it('an upstream 400 writes one file, mode 600, with the request and the error body, redacted by the request\'s own credentials', async () => {
    dir = await mkdtemp(join(tmpdir(), 'tg-dumps-'));
    harness = await startHarness({ debugDumps: join(dir, 'dumps') });
    // The upstream echoes the key back, as some do; the dump must not carry it.
    harness.upstream.chat.enqueue(scenario.chat().httpError(400, { message: `Invalid 'temperature' for key ${SECRET}`, type: 'invalid_request_error' }));
    const response = await ask('/v1/chat/completions', { model: 'm', temperature: 9, messages: [{ role: 'user', content: PROMPT_MARKER }] });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('Invalid'); // the client still gets the upstream's own 400 (R8.6)

    const files = await readdir(join(dir, 'dumps'));
    expect(files).toHaveLength(1);
    const path = join(dir, 'dumps', files[0]!);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    const text = await readFile(path, 'utf8');
    expect(text).not.toContain(SECRET);
    const dump = JSON.parse(text) as { status: number; code: string; request: { messages: unknown[]; temperature: number }; errorBody: unknown };
    expect(dump).toMatchObject({ status: 400, request: { temperature: 9, messages: [{ role: 'user', content: PROMPT_MARKER }] } });
    expect(JSON.stringify(dump.errorBody)).toContain("Invalid 'temperature' for key [redacted]");
  });

  it('writes nothing without the option, and nothing for errors that are not a 400', async () => {
    dir = await mkdtemp(join(tmpdir(), 'tg-dumps-'));
    harness = await startHarness({ debugDumps: join(dir, 'dumps'), retry: { maxRetries: 0 } });
    harness.upstream.messages.enqueue(scenario.messages().httpError(429, { message: 'slow down' }));
    expect((await ask('/v1/messages', { model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'q' }] })).status).toBe(429);
    await expect(readdir(join(dir, 'dumps'))).rejects.toMatchObject({ code: 'ENOENT' });
    await harness.close();

    harness = await startHarness();
    harness.upstream.chat.enqueue(scenario.chat().httpError(400, { message: 'bad' }));
    expect((await ask('/v1/chat/completions', { model: 'm', messages: [{ role: 'user', content: 'q' }] })).status).toBe(400);
    expect(harness.gateway.config.debugDumps).toBeUndefined();
  });

  it('is set by --debug-dumps or TURNGUARD_DEBUG_DUMPS', async () => {
    const fromFlag = await loadGatewayConfig({ argv: ['--debug-dumps', '/tmp/d1'], env: {}, defaultStatsPath: undefined });
    expect(fromFlag.config.debugDumps).toBe('/tmp/d1');
    const fromEnv = await loadGatewayConfig({ argv: [], env: { TURNGUARD_DEBUG_DUMPS: '/tmp/d2' }, defaultStatsPath: undefined });
    expect(fromEnv.config.debugDumps).toBe('/tmp/d2');
  });
});
