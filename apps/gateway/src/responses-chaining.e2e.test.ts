import { frameRecordedLines, readRecordedStreams } from '@turnguard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedGateway, type ScriptedGateway } from './testing/scripted-sse-upstream.test-helper.js';

// Decision 0211: after a recovered Responses turn the client chains from the id it saw (segment 1's);
// the gateway sends upstream the recovery response's id, which holds the answer the client got.
const recording = readRecordedStreams('responses').find((stream) => stream.name === 'xai-text-streaming.1')!;
const upstreamId = (JSON.parse(recording.lines[0]!) as { response: { id: string } }).response.id;
const withId = (lines: readonly string[], id: string): string => frameRecordedLines('responses', lines).split(upstreamId).join(id);
/** Segment 1: the recording up to its reasoning summary, then the connection ends (a reasoning-only cut). */
const cutLines = recording.lines.slice(0, recording.lines.findIndex((line) => line.includes('"response.reasoning_summary_text.done"')));

let scripted: ScriptedGateway;
beforeAll(async () => {
  scripted = await startScriptedGateway();
});
afterAll(() => scripted.close());

async function ask(extra: Record<string, unknown>): Promise<string> {
  const response = await scripted.post('responses', { model: 'grok-code-fast-1', input: 'hi', max_tokens: undefined, ...extra });
  return response.text();
}

describe('Responses previous_response_id after a recovery (decision 0211)', () => {
  it('the client saw segment 1’s id; chaining from it reaches the recovery response upstream', async () => {
    expect(cutLines.length).toBeGreaterThan(3);
    const { replies, bodies } = scripted;
    replies.push(withId(cutLines, 'resp_cut'), withId(recording.lines, 'resp_recovered'));
    const first = await ask({});
    expect(bodies).toHaveLength(2);
    expect(first).toContain('"id":"resp_cut"');
    expect(first).not.toContain('"id":"resp_recovered"');

    replies.push(withId(recording.lines, 'resp_next'));
    await ask({ previous_response_id: 'resp_cut' });
    expect(bodies[2]?.previous_response_id).toBe('resp_recovered');

    // Ids the gateway did not recover, and requests with store: false, are forwarded as they are.
    replies.push(withId(recording.lines, 'resp_other'), withId(cutLines, 'resp_cut2'), withId(recording.lines, 'resp_rec2'), withId(recording.lines, 'resp_x'));
    await ask({ previous_response_id: 'resp_next' });
    expect(bodies[3]?.previous_response_id).toBe('resp_next');
    await ask({ store: false });
    await ask({ previous_response_id: 'resp_cut2' });
    expect(bodies[6]?.previous_response_id).toBe('resp_cut2');
  });
});
