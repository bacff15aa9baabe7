import type { ServerResponse } from 'node:http';
import { PROTOCOLS, type Protocol } from '@turnguard/core';
import { frameRecordedLines, readRecordedStreams } from '@turnguard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedGateway, type ScriptedGateway } from './testing/scripted-sse-upstream.test-helper.js';
import { withoutTurnComment } from './testing/turn-comment.test-helper.js';

// R8.12: a response whose terminal frame arrived is complete even if the transport then
// ends badly; through the gateway it is never a 502 nor an appended error. Real sockets both ways.
// runTurn decides this in core (decision 0270); the gateway relays what runTurn decides, so these
// check that the two agree.
let scripted: ScriptedGateway;
beforeAll(async () => {
  scripted = await startScriptedGateway();
});
afterAll(() => scripted.close());

/** A short complete recording per protocol (terminal frame included). */
function completeStream(protocol: Protocol): string {
  const recording = readRecordedStreams(protocol).find((stream) => stream.name.includes('text') || stream.lines.length < 40) ?? readRecordedStreams(protocol)[0]!;
  return frameRecordedLines(protocol, recording.lines);
}

type BadEnding = { name: string; reply: (text: string) => (response: ServerResponse) => void };

const BAD_ENDINGS: BadEnding[] = [
  {
    name: 'chunked body missing its last chunk, then FIN',
    reply: (text) => (response) => {
      response.write(text, () => response.socket?.end());
    },
  },
  {
    name: 'RST after the terminal frame',
    reply: (text) => (response) => {
      response.write(text, () => response.socket?.resetAndDestroy());
    },
  },
];

describe('R8.12 complete means complete, through the gateway', () => {
  for (const protocol of PROTOCOLS) {
    for (const ending of BAD_ENDINGS) {
      it(`${protocol}: ${ending.name} — streaming gets the upstream's stream and nothing after; JSON is a 200`, async () => {
        const text = completeStream(protocol);
        scripted.replies.push(ending.reply(text));
        const streamed = await scripted.post(protocol, protocol === 'chat' ? { stream_options: { include_usage: true } } : {});
        expect(streamed.status).toBe(200);
        expect(withoutTurnComment(await streamed.text())).toBe(text);

        scripted.replies.push(ending.reply(text));
        const json = await scripted.post(protocol, { stream: false });
        expect(json.status).toBe(200);
      });
    }
  }
});
