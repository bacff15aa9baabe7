import { createServer } from 'node:net';
import { scenario } from '@turnguard/testkit';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../create-gateway.js';
import { startHarness, type Harness } from '../testing/gateway-harness.test-helper.js';
import { rawRequest } from '../testing/raw-http.test-helper.js';

// R8.11 over real sockets: every client request → exactly one structured access-log line.
interface LogLine {
  level: number;
  msg: string;
  time: number;
  [field: string]: unknown;
}

let harness: Harness | undefined;
let gateway: Gateway | undefined;

afterEach(async () => {
  await harness?.close();
  await gateway?.close();
  harness = undefined;
  gateway = undefined;
});

function captureLines(): { destination: { write(line: string): void }; lines: () => LogLine[] } {
  const written: string[] = [];
  return {
    destination: { write: (line) => void written.push(line) },
    lines: () => written.join('').split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as LogLine),
  };
}

/** The access line is written once the response closed and the turn settled: wait for it without sleeping blindly. */
async function waitForLines(read: () => LogLine[], count: number): Promise<LogLine[]> {
  for (let round = 0; round < 200 && read().filter((line) => line.msg === 'request').length < count; round += 1) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return read();
}

describe('R8.11 access log', () => {
  it('one line per client request with time, method, route, model, status, physical requests, recovered, outcome and duration', async () => {
    const log = captureLines();
    harness = await startHarness({ logDestination: log.destination, maxBodyBytes: 4096 });
    harness.upstream.chat.enqueue(scenario.chat().text('plain answer').usage({ input: 3, output: 2 }));
    harness.upstream.messages.enqueue(scenario.messages().reasoning(200).usage({ input: 7, output: 1 }).eof(), scenario.messages().text('Recovered.').usage({ input: 7, output: 3 }));
    const openai = new OpenAI({ apiKey: 'sk-client', baseURL: harness.openAiBaseUrl, maxRetries: 0 });
    await openai.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] });
    const recovered = await fetch(`${harness.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'sk-ant-client' },
      body: JSON.stringify({ model: 'claude-test', max_tokens: 4096, stream: true, messages: [{ role: 'user', content: 'q' }] }),
    });
    await recovered.text();
    await fetch(`${harness.url}/v1/nowhere?key=secret-in-query`);
    await rawRequest(harness.url, { path: '/v1/chat/completions', headers: { host: 'evil.example' }, body: '{}' });
    await fetch(`${harness.openAiBaseUrl}/chat/completions`, { method: 'POST', headers: { authorization: 'Bearer k' }, body: 'x'.repeat(10_000) });

    const lines = (await waitForLines(log.lines, 5)).filter((line) => line.msg === 'request');
    expect(lines).toHaveLength(5);
    for (const line of lines) {
      expect(Object.keys(line).sort()).toEqual(
        expect.arrayContaining(['time', 'level', 'msg', 'method', 'route', 'status', 'physicalRequests', 'recovered', 'outcome', 'durationMs']),
      );
      expect(typeof line.time).toBe('number');
      expect(line.level).toBe(30);
      expect(typeof line.durationMs).toBe('number');
    }
    expect(lines.map(({ method, route, model, status, physicalRequests, recovered: wasRecovered, outcome }) => ({ method, route, model, status, physicalRequests, recovered: wasRecovered, outcome }))).toEqual([
      { method: 'POST', route: '/v1/chat/completions', model: 'gpt-test', status: 200, physicalRequests: 1, recovered: false, outcome: 'OK' },
      { method: 'POST', route: '/v1/messages', model: 'claude-test', status: 200, physicalRequests: 2, recovered: true, outcome: 'OK' },
      // R8.8: an unknown path is the upstream's to answer (its 404), forwarded outside any turn.
      { method: 'GET', route: '/v1/nowhere', model: undefined, status: 404, physicalRequests: 1, recovered: false, outcome: 'PASS_THROUGH' },
      { method: 'POST', route: '/v1/chat/completions', model: undefined, status: 403, physicalRequests: 0, recovered: false, outcome: 'GATEWAY_FORBIDDEN_HOST' },
      { method: 'POST', route: '/v1/chat/completions', model: undefined, status: 413, physicalRequests: 0, recovered: false, outcome: 'GATEWAY_BODY_TOO_LARGE' },
    ]);
    expect(JSON.stringify(log.lines())).not.toContain('secret-in-query');
  });

  it('an unreachable upstream (ECONNREFUSED) gives the client a 502 and the operator a warning with its code', async () => {
    const closedPort = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as { port: number };
        probe.close(() => resolve(port));
      });
    });
    const log = captureLines();
    const dead = `http://127.0.0.1:${closedPort}/v1`;
    gateway = createGateway({ port: 0, env: {}, upstreams: { chat: dead, responses: dead, messages: dead }, retry: { maxRetries: 0 }, logDestination: log.destination });
    await gateway.listen();
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
      body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(response.status).toBe(502);
    const lines = await waitForLines(log.lines, 1);
    const warning = lines.find((line) => line.level === 40);
    expect(warning).toMatchObject({ msg: 'upstream request failed', route: '/v1/chat/completions' });
    expect(String(warning?.code)).toMatch(/ECONNREFUSED|TRANSPORT|CONNECT/);
    expect(lines.filter((line) => line.msg === 'request')).toEqual([expect.objectContaining({ status: 502, physicalRequests: 1, outcome: expect.any(String) })]);
  });

  it('--log-level warn keeps the warnings and drops the request lines; silent writes nothing', async () => {
    for (const [logLevel, expected] of [['warn', 0], ['silent', 0]] as const) {
      const log = captureLines();
      harness = await startHarness({ logDestination: log.destination, logLevel });
      await fetch(`${harness.url}/healthz`);
      await harness.close();
      harness = undefined;
      expect(log.lines().filter((line) => line.msg === 'request')).toHaveLength(expected);
    }
  });
});
