import Anthropic from '@anthropic-ai/sdk';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import type { Gateway } from '../create-gateway.js';
import { runGatewayCli } from './run-gateway-cli.js';

let gateway: Gateway | undefined;
let dir: string | undefined;

afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

function createIo(env: Record<string, string | undefined> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { env, writeOut: (text: string) => out.push(text), writeErr: (text: string) => err.push(text) }, out, err };
}

describe('turnguard CLI', () => {
  it('serve --mock works offline with both SDKs and records stats.json (R8.1, R6)', async () => {
    dir = await mkdtemp(join(tmpdir(), 'turnguard-gateway-'));
    const statsPath = join(dir, 'stats.json');
    const { io, out } = createIo();
    const result = await runGatewayCli(['serve', '--mock', '--port', '0', '--stats-file', statsPath], io);
    expect(result.exitCode).toBe(0);
    gateway = result.gateway!;
    expect(out.join('')).toContain(`turnguard gateway listening on ${gateway.url} (mock upstream)`);

    const openai = new OpenAI({ apiKey: 'unused', baseURL: `${gateway.url}/v1` });
    const completion = await openai.chat.completions.create({ model: 'mock', messages: [{ role: 'user', content: 'hi' }] });
    expect(completion.choices[0]?.message.content).toContain('turnguard mock upstream');

    // The mock's `cut-thinking` model shows R4 offline: cut thinking, then one recovery request.
    const anthropic = new Anthropic({ apiKey: 'unused', baseURL: gateway.url });
    const message = await anthropic.messages.stream({ model: 'mock-cut-thinking', max_tokens: 4096, messages: [{ role: 'user', content: 'q' }] }).finalMessage();
    expect(message.content.at(-1)).toMatchObject({ type: 'text' });
    expect(gateway.mockUpstream?.upstream.requests).toHaveLength(3);

    const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
    // prom-client writes labels in the order they are declared: protocol, model, outcome/result.
    expect(metrics).toContain('turnguard_logical_turns_total{protocol="messages",model="mock-cut-thinking",outcome="recovered"} 1');
    expect(metrics).toContain('turnguard_recoveries_total{protocol="messages",model="mock-cut-thinking",result="recovered"} 1');

    await gateway.close();
    gateway = undefined;
    const stats = JSON.parse(await readFile(statsPath, 'utf8')) as { lifetime: { requests: number }; logical: { turns: number; recovered: number } };
    expect(stats.lifetime.requests).toBe(3);
    expect(stats.logical).toMatchObject({ turns: 2, recovered: 1 });
  });

  it('exits 2 with a clear message for bad config, never starting a server', async () => {
    const { io, err } = createIo({ TURNGUARD_UPSTREAM_CHAT: 'nope' });
    const result = await runGatewayCli(['serve', '--port', '0'], io);
    expect(result).toEqual({ exitCode: 2 });
    expect(err.join('')).toBe('turnguard serve: upstreams.chat is not a valid URL: "nope".\n');
  });

  it('R8.9 serve --host 0.0.0.0 without a token exits 2 before listening, saying how to fix it', async () => {
    const { io, err, out } = createIo({ OPENAI_API_KEY: 'sk-env-0123456789abcdef' });
    const result = await runGatewayCli(['serve', '--host', '0.0.0.0', '--port', '0'], io);
    expect(result).toEqual({ exitCode: 2 });
    expect(err.join('')).toMatch(/^turnguard serve: Refusing to listen on 0\.0\.0\.0 without a gateway token.*TURNGUARD_AUTH_TOKEN/);
    expect(out.join('')).toBe('');
  });

  it('R12.3 the banner says where each route forwards to, with no key from an upstream URL', async () => {
    const { io, out } = createIo();
    const argv = ['serve', '--port', '0', '--no-stats', '--upstream-chat', 'https://llm.example/v1?key=sk-MARKQUERYKEY', '--upstream-messages', 'https://anthropic.example', '--upstream-responses', 'https://openai.example/v1/'];
    const result = await runGatewayCli(argv, io);
    expect(result.exitCode).toBe(0);
    gateway = result.gateway!;
    const banner = out.join('');
    const url = gateway.url!;
    expect(banner).toContain(`  chat      ${url}/v1/chat/completions → https://llm.example/v1/chat/completions\n`);
    expect(banner).toContain(`  messages  ${url}/v1/messages → https://anthropic.example/v1/messages\n`);
    expect(banner).toContain(`  responses ${url}/v1/responses → https://openai.example/v1/responses\n`);
    expect(banner).toContain(`  other     ${url}/v1/* → https://llm.example/v1 (with anthropic-version or under /v1/messages/: https://anthropic.example/)\n`);
    expect(banner).not.toContain('MARKQUERYKEY');
  });

  it('prints usage for help and rejects unknown commands', async () => {
    const help = createIo();
    expect((await runGatewayCli(['serve', '--help'], help.io)).exitCode).toBe(0);
    expect(help.out.join('')).toContain('Usage: turnguard serve');
    const unknown = createIo();
    expect((await runGatewayCli(['launch'], unknown.io)).exitCode).toBe(2);
    expect(unknown.err.join('')).toContain('unknown command "launch"');
  });

  it('delegates `turnguard stats` to the stats CLI', async () => {
    const { io, out } = createIo();
    expect((await runGatewayCli(['stats', '--help'], io)).exitCode).toBe(0);
    expect(out.join('')).toContain('turnguard-stats');
  });
});
