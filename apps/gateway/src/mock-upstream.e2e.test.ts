import Anthropic from '@anthropic-ai/sdk';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { runGatewayCli } from './cli/run-gateway-cli.js';
import { createGateway, type Gateway } from './create-gateway.js';

// `--mock` as a newcomer meets it: the side routes clients call answer plausibly (R8.8), its own errors say who wrote them.
let gateway: Gateway | undefined;
let home: string | undefined;

afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
  if (home !== undefined) await rm(home, { recursive: true, force: true });
  home = undefined;
});

async function startMockGateway(): Promise<Gateway> {
  gateway = createGateway({ port: 0, mock: true, env: {} });
  await gateway.listen();
  return gateway;
}

describe('the embedded mock upstream (--mock)', () => {
  it('lists models to the openai SDK and answers one model', async () => {
    const { url } = await startMockGateway();
    const openai = new OpenAI({ apiKey: 'any', baseURL: `${url}/v1` });
    const ids = [];
    for await (const model of openai.models.list()) ids.push(model.id);
    expect(ids).toContain('gpt-5');
    expect(await openai.models.retrieve('gpt-4.1')).toMatchObject({ id: 'gpt-4.1', object: 'model' });
  });

  it('lists models and counts tokens for the Anthropic SDK', async () => {
    const { url } = await startMockGateway();
    const anthropic = new Anthropic({ apiKey: 'any', baseURL: url });
    const page = await anthropic.models.list();
    expect(page.data.map((model) => model.id)).toContain('claude-sonnet-4-5-20250929');
    const counted = await anthropic.messages.countTokens({ model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'How many tokens is this question?' }] });
    expect(counted.input_tokens).toBeGreaterThan(0);
  });

  it('a route it does not serve is a 404 that says "turnguard mock" and names the path sent', async () => {
    const { url } = await startMockGateway();
    const response = await fetch(`${url}/v1/embeddings`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer k' }, body: '{"model":"m","input":"x"}' });
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: { message: 'turnguard mock: no route for POST /v1/embeddings' } });
  });

  it('serve --mock records into ~/.turnguard/mock-stats.json, never the real stats.json, unless told otherwise', async () => {
    home = await mkdtemp(join(tmpdir(), 'tg-mock-home-'));
    const previous = process.env.HOME;
    process.env.HOME = home;
    try {
      const out: string[] = [];
      const io = { env: {}, writeOut: (text: string) => void out.push(text), writeErr: () => undefined };
      const result = await runGatewayCli(['serve', '--mock', '--port', '0'], io);
      gateway = result.gateway;
      expect(gateway?.config.statsPath).toBe(join(home, '.turnguard', 'mock-stats.json'));
      expect(out.join('')).toContain(`stats     ${join(home, '.turnguard', 'mock-stats.json')}`);
      await gateway?.close();
      const told = await runGatewayCli(['serve', '--mock', '--port', '0'], { ...io, env: { TURNGUARD_STATS_FILE: join(home, 'told.json') } });
      gateway = told.gateway;
      expect(gateway?.config.statsPath).toBe(join(home, 'told.json'));
      await gateway?.close();
      const real = await runGatewayCli(['serve', '--port', '0'], io);
      gateway = real.gateway;
      expect(gateway?.config.statsPath).toBe(join(home, '.turnguard', 'stats.json'));
    } finally {
      process.env.HOME = previous;
    }
  });
});
