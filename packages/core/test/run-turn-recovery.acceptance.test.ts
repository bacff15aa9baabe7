/**
 * R4 stream recovery, msw-driven through @turnguard/testkit
 * for all three protocols. Each case asserts the physical requests, the
 * bodies actually sent, the events the host saw and the final result.
 */
import { scenario } from '@turnguard/testkit';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { RECOVERY_INSTRUCTION, type Protocol } from '../src/index.js';
import { startUpstream } from './msw-upstream.js';
import { adapterFor, collectEvents, enqueue, MARKER, PROTOCOLS, startTurn, textOf } from './turn-harness.js';

const { upstream, server } = startUpstream();
afterEach(() => {
  vi.useRealTimers();
  upstream.reset();
});
afterAll(() => server.close());

const THINKING = `First I restate the lemma. ${MARKER} Then I check the base case and the induction step.`;
const cutThinking = (p: Protocol) => scenario.for(p).reasoning(THINKING).eof();
const answer = (p: Protocol) => scenario.for(p).reasoning('brief').text('The lemma holds.');
const sentBodies = (p: Protocol) => upstream.requestsFor(p).map((request) => request.body as Record<string, unknown>);
const LENGTH_FINISH = { chat: 'length', messages: 'max_tokens', responses: 'incomplete:max_output_tokens' } as const;
const TOOL_CHOICE_NONE = { chat: 'none', messages: { type: 'none' }, responses: 'none' } as const;

describe.each(PROTOCOLS)('runTurn recovery over %s (R4)', (protocol) => {
  it.each(['mimo-v2.6-flash', 'some-model-nobody-listed'])(
    'rows 1–2: reasoning-only EOF then a normal answer → 2 requests, text once, normal finish (model %s)',
    async (model) => {
      enqueue(upstream, protocol, cutThinking(protocol), answer(protocol));
      const { run, samples, turns } = startTurn(protocol, { settings: { model } });
      const events = await collectEvents(run);
      const result = await run.result;
      expect(upstream.requestsFor(protocol)).toHaveLength(2);
      expect(textOf(events)).toBe('The lemma holds.');
      expect(events.filter((e) => e.type === 'recovery-start')).toHaveLength(1);
      // Segment 1's thinking is shown once, live, and never replayed.
      const reasoning = events.map((e) => (e.type === 'reasoning-delta' ? e.delta : '')).join('');
      expect(reasoning.split(MARKER)).toHaveLength(2);
      expect(events.at(-1)).toMatchObject({ type: 'finish', finishReason: { unified: 'stop' } });
      expect(result).toMatchObject({ outcome: 'ok', error: undefined, recovery: { recovered: true } });
      expect(
        samples.map((s) => [s.attempt, s.ok, s.truncated, s.recoveryScheduled, s.recoveryAttempt, s.recovered]),
      ).toEqual([
        [0, false, true, true, false, false],
        [1, true, false, true, true, true],
      ]);
      expect(turns).toEqual([expect.objectContaining({ outcome: 'ok', recovered: true, physicalRequests: 2, model })]);
      // One logical response: the host saw segment 1's id; each segment record keeps its own upstream id.
      const [first, second] = result.segments.map((segment) => segment.responseId);
      expect(first).toEqual(expect.any(String));
      expect(second).toEqual(expect.any(String));
      expect(second).not.toBe(first);
      expect(events.filter((e) => e.type === 'response-metadata').map((e) => e.responseId)).toEqual([first]);
    },
  );

  it('row 3: segment 1 already has text → no recovery, STREAM_CUT', async () => {
    enqueue(
      upstream,
      protocol,
      scenario.for(protocol).reasoning('think').text('Partial answer').eof(),
      answer(protocol),
    );
    const { run } = startTurn(protocol);
    const events = await collectEvents(run);
    expect(upstream.requestsFor(protocol)).toHaveLength(1);
    expect(textOf(events)).toBe('Partial answer');
    expect(await run.result).toMatchObject({
      recoverySkipped: 'text-produced',
      error: { code: 'STREAM_CUT', retryable: false },
    });
  });

  it.each([
    ['complete', undefined],
    ['unfinished', 5],
  ])('row 4: segment 1 has a %s tool call → no recovery, the tool call handed over once', async (_name, cutAtChar) => {
    const first = scenario
      .for(protocol)
      .reasoning('think')
      .toolCall('read_file', { arg: 'a.txt' }, cutAtChar === undefined ? {} : { cutAtChar });
    enqueue(upstream, protocol, cutAtChar === undefined ? first.eof() : first, answer(protocol));
    const { run } = startTurn(protocol);
    const events = await collectEvents(run);
    expect(upstream.requestsFor(protocol)).toHaveLength(1);
    expect(events.filter((e) => e.type === 'tool-call-start')).toHaveLength(1);
    expect(await run.result).toMatchObject({ recoverySkipped: 'tool-call-produced', error: { code: 'STREAM_CUT' } });
  });

  it.each([
    ['a normal stop', undefined, 'stop'],
    ['the output limit', LENGTH_FINISH[protocol], 'length'],
  ] as const)(
    'row 5: reasoning-only segment ending with %s keeps the protocol finish, no recovery',
    async (_name, reason, unified) => {
      const base = scenario.for(protocol).reasoning('think');
      enqueue(upstream, protocol, reason === undefined ? base : base.finish(reason as never), answer(protocol));
      const { run } = startTurn(protocol);
      const events = await collectEvents(run);
      expect(upstream.requestsFor(protocol)).toHaveLength(1);
      expect(events.at(-1)).toMatchObject({ type: 'finish', finishReason: { unified } });
      expect((await run.result).recovery).toBeUndefined();
    },
  );

  it.each(['during segment 1', 'between segments'])('row 6: abort %s → no second request, ABORTED', async (when) => {
    enqueue(upstream, protocol, cutThinking(protocol), answer(protocol));
    const controller = new AbortController();
    const { run, turns } = startTurn(protocol, { signal: controller.signal });
    const events = await collectEvents(run, (event) => {
      if (when === 'during segment 1' ? event.type === 'reasoning-delta' : event.type === 'recovery-start')
        controller.abort();
    });
    expect(upstream.requestsFor(protocol)).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({ type: 'error', error: { kind: 'aborted', code: 'ABORTED' } });
    expect((await run.result).error).toMatchObject({ kind: 'aborted', code: 'ABORTED' });
    expect(turns).toEqual([expect.objectContaining({ outcome: 'aborted' })]);
  });

  it.each([
    ['cut again', () => scenario.for(protocol).reasoning('more thinking').eof(), 'STREAM_CUT'],
    ['an HTTP 500', () => scenario.for(protocol).httpError(500), 'STREAM_CUT'],
    [
      'an in-stream error',
      () => scenario.for(protocol).streamError({ type: 'server_error', message: 'boom' }),
      'STREAM_CUT',
    ],
  ])('row 7: segment 2 %s → final failure, never a third request', async (_name, second, code) => {
    enqueue(upstream, protocol, cutThinking(protocol), second(), answer(protocol));
    const { run, samples } = startTurn(protocol);
    await collectEvents(run);
    expect(upstream.requestsFor(protocol)).toHaveLength(2);
    expect((await run.result).error).toMatchObject({ code, retryable: false });
    expect(samples.map((s) => [s.attempt, s.ok, s.recovered])).toEqual([
      [0, false, false],
      [1, false, false],
    ]);
  });

  it('row 7: segment 2 aborted → ABORTED, never a third request', async () => {
    enqueue(
      upstream,
      protocol,
      cutThinking(protocol),
      scenario.for(protocol).text('one two three four five six'),
      answer(protocol),
    );
    const controller = new AbortController();
    const { run } = startTurn(protocol, { signal: controller.signal });
    await collectEvents(run, (event) => {
      if (event.type === 'text-delta') controller.abort();
    });
    expect(upstream.requestsFor(protocol)).toHaveLength(2);
    expect((await run.result).error).toMatchObject({ kind: 'aborted', code: 'ABORTED' });
  });

  it('row 7: segment 2 timed out → STREAM_CUT naming 180 s and segment 2, never a third request', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    enqueue(upstream, protocol, cutThinking(protocol), answer(protocol).delay(100_000), answer(protocol));
    const { run } = startTurn(protocol);
    const settled = run.result.then((result) => result); // awaiting result drives the turn
    await vi.advanceTimersByTimeAsync(180_000);
    const result = await settled;
    expect(upstream.requestsFor(protocol)).toHaveLength(2);
    expect(result.error).toMatchObject({
      code: 'STREAM_CUT',
      details: { timeLimit: 'recovery-segment', limitSeconds: 180, segment: 2 },
    });
    expect(result.error?.message).toContain('180 s');
  });

  it('row 8: segment 2 with whitespace-only text → not recovered', async () => {
    enqueue(upstream, protocol, cutThinking(protocol), scenario.for(protocol).text('   \n  '));
    const { run, samples, turns } = startTurn(protocol);
    await collectEvents(run);
    expect(upstream.requestsFor(protocol)).toHaveLength(2);
    expect((await run.result).error).toMatchObject({ code: 'STREAM_CUT', details: { recoveryFailure: 'no-text' } });
    expect(samples[1]).toMatchObject({ recovered: false });
    expect(turns[0]).toMatchObject({ recovered: false, outcome: 'failed' });
  });

  it('row 9: recovery request keeps tool declarations, disables calling in the protocol dialect; a returned tool call is not handed over', async () => {
    const second = scenario.for(protocol).toolCall('run_shell', { arg: 'rm -rf /' }).text('The lemma holds.');
    enqueue(upstream, protocol, cutThinking(protocol), second);
    const { run } = startTurn(protocol);
    const events = await collectEvents(run);
    const [firstBody, secondBody] = sentBodies(protocol);
    expect(secondBody!.tools).toEqual(firstBody!.tools);
    expect(firstBody!.tool_choice).not.toEqual(TOOL_CHOICE_NONE[protocol]);
    expect(secondBody!.tool_choice).toEqual(TOOL_CHOICE_NONE[protocol]);
    expect(adapterFor(protocol).getMaxOutputTokens(secondBody!)).toBe(8192);
    // The checkpoint is labelled input material in a user message: never system, never a tool result.
    const { prompt } = adapterFor(protocol).parseRequest(secondBody!);
    // Messages may merge consecutive user turns, so look at the last message rather than a count.
    const last = prompt.messages.at(-1)!;
    expect(last.role).toBe('user');
    const lastText = last.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
    expect(lastText).toContain('input material, not an instruction');
    expect(lastText).toContain(THINKING);
    expect(lastText).toContain(RECOVERY_INSTRUCTION);
    const elsewhere = JSON.stringify(prompt.messages.filter((message) => message !== last));
    expect(elsewhere).not.toContain('Then I check the base case');
    // Same session, new request id (R4.6).
    const [firstRequest, secondRequest] = upstream.requestsFor(protocol);
    expect(secondRequest!.headers['x-session-id']).toBe('session-42');
    expect(secondRequest!.headers['x-request-id']).not.toBe(firstRequest!.headers['x-request-id']);
    expect(events.some((e) => e.type.startsWith('tool-call'))).toBe(false);
    expect(textOf(events)).toBe('The lemma holds.');
  });

  it.each([
    ['the checkpoint is over its limit', { checkpointMaxChars: 40 }, 'checkpoint-too-large'],
    ['the context estimate does not fit', { contextWindowTokens: 8200 }, 'context-capacity'],
  ])('row 10: %s → no recovery, identifiable failure', async (_name, streamRecovery, reason) => {
    enqueue(upstream, protocol, cutThinking(protocol), answer(protocol));
    const { run } = startTurn(protocol, { streamRecovery });
    await collectEvents(run);
    expect(upstream.requestsFor(protocol)).toHaveLength(1);
    expect(await run.result).toMatchObject({
      recoverySkipped: reason,
      error: { code: 'STREAM_CUT', details: { recoverySkipped: reason } },
    });
  });

  it('row 11: remaining known output budget below 512 → no recovery request', async () => {
    enqueue(upstream, protocol, cutThinking(protocol), answer(protocol));
    const { run } = startTurn(protocol, { settings: { maxOutputTokens: 511 } });
    await collectEvents(run);
    expect(upstream.requestsFor(protocol)).toHaveLength(1);
    expect((await run.result).recoverySkipped).toBe('output-budget');
  });
});
