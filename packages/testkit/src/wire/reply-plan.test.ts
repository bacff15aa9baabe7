import { readFileSync } from 'node:fs';
import { TurnError } from '@turnguard/core';
import { describe, expect, it } from 'vitest';
import { scenario } from '../scenario/builder.js';
import { makeFillerText, splitIntoDeltas } from '../scenario/text-pieces.js';
import { planReply } from './reply-plan.js';

const decode = (chunks: Uint8Array[]): string => Buffer.concat(chunks.map((chunk) => Buffer.from(chunk))).toString('utf8');
const streamBody = { model: 'm', stream: true };

describe('reply plans (R4.1 cuts, R5.1 usage)', () => {
  it('makes filler of exactly N characters and deltas that join back losslessly', () => {
    expect(makeFillerText(4000)).toHaveLength(4000);
    const text = makeFillerText(777);
    expect(splitIntoDeltas(text, 1).join('')).toBe(text);
    expect(splitIntoDeltas(text, 3).join('')).toBe(text);
  });

  it.each([
    ['chat', scenario.chat().text(300).usage({ input: 1, output: 2 })],
    ['messages', scenario.messages().text(300).usage({ input: 1, output: 2 })],
    ['responses', scenario.responses().text(300).usage({ input: 1, output: 2 })],
  ] as const)('%s: a cut after K events or K bytes never carries a terminal frame', (_name, base) => {
    for (const built of [base.eof({ afterEvents: 5 }), base.eof({ afterBytes: 700 }), base.destroySocket({ afterBytes: 10_000 })]) {
      const plan = planReply({ scenario: built.build(), requestBody: streamBody, serial: 1 });
      const text = decode(plan.chunks);
      expect(text).not.toMatch(/\[DONE\]|finish_reason":"stop|message_stop|message_delta|response\.completed/);
    }
    const byBytes = planReply({ scenario: base.eof({ afterBytes: 700 }).build(), requestBody: streamBody, serial: 1 });
    expect(byBytes.chunks.reduce((sum, chunk) => sum + chunk.byteLength, 0)).toBe(700);
    const byEvents = planReply({ scenario: base.eof({ afterEvents: 5 }).build(), requestBody: streamBody, serial: 1 });
    expect(byEvents.chunks).toHaveLength(5);
  });

  it('frames Chat as data-only records ending in [DONE], like the openai-text recording', () => {
    const plan = planReply({ scenario: scenario.chat().text('Hi').usage({ input: 1, output: 1 }).build(), requestBody: streamBody, serial: 1 });
    const text = decode(plan.chunks);
    expect(text).not.toContain('event:');
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
    // Same envelope keys as the real recording's first chunk (minus the optional fingerprint fields).
    const recorded = JSON.parse(readFileSync(new URL('../../../../fixtures/chat/openai-text.chunks.txt', import.meta.url), 'utf8').split('\n')[0]!) as object;
    const ours = JSON.parse(text.split('\n')[0]!.slice('data: '.length)) as object;
    const optional = new Set(['service_tier', 'system_fingerprint', 'obfuscation']);
    expect(Object.keys(ours).sort()).toEqual(Object.keys(recorded).filter((key) => !optional.has(key)).sort());
  });

  it('answers a non-streaming request with JSON and cuts its body for eof()', () => {
    const full = planReply({ scenario: scenario.messages().text('Hi').build(), requestBody: { model: 'm' }, serial: 1 });
    expect(full.headers['content-type']).toBe('application/json');
    expect(JSON.parse(decode(full.chunks))).toMatchObject({ type: 'message', content: [{ type: 'text', text: 'Hi' }], stop_reason: 'end_turn' });
    const cut = planReply({ scenario: scenario.messages().text('Hi').eof({ afterBytes: 10 }).build(), requestBody: { model: 'm' }, serial: 1 });
    expect(decode(cut.chunks)).toHaveLength(10);
  });

  it('rejects bad scenario input with a typed TurnError', () => {
    expect(() => scenario.chat().reasoning(-1)).toThrow(TurnError);
    expect(() => scenario.chat().httpError(200)).toThrow(/400\.\.599/);
    expect(() => scenario.chat().eof({ afterEvents: 1, afterBytes: 1 })).toThrow(TurnError);
    expect(() => scenario.chat().toolCall('f', '{}', { cutAtChar: 1 }).text('x')).toThrow(/cut mid-arguments/);
    expect(() => scenario.chat().toolCall('f', '{}', { cutAtChar: 5 })).toThrow(/past the end/);
  });
});
