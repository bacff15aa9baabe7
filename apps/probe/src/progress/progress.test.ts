/** R9.2: live progress — phase, elapsed, characters per segment, retries waited; plain lines without a TTY. */
import type { TurnError } from '@turnguard/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ProgressRenderer } from './progress-renderer.js';
import { ProgressTracker, type ObservedEvent } from './progress-tracker.js';

const retry = (attempt: number, delayMs: number): ObservedEvent => ({
  type: 'retry',
  retryNumber: attempt,
  attempt,
  delayMs,
  kind: 'rate_limit',
  code: 'RATE_LIMIT',
  status: 429,
  attemptId: `a${attempt}`,
  previousAttemptId: `a${attempt - 1}`,
});

function startRun(isTTY: boolean) {
  let clock = 1_000;
  const written: string[] = [];
  const renderer = new ProgressRenderer({ write: (text) => written.push(text), isTTY, columns: 200 }, 'long-think-cut/chat', () => clock);
  const tracker = new ProgressTracker((notice) => renderer.notice(notice));
  renderer.attach(tracker);
  const advance = (ms: number): void => {
    clock += ms;
  };
  return { renderer, tracker, written, advance };
}

describe('ProgressTracker', () => {
  it('counts characters per segment, never keeping the text, and opens a segment per retry and recovery', () => {
    const { tracker } = startRun(false);
    tracker.observe({ type: 'reasoning-delta', id: 'r', delta: 'abcd' });
    tracker.observe({ type: 'reasoning-delta', id: 'r', delta: 'ef' });
    tracker.observe(retry(1, 200));
    tracker.observe({ type: 'text-delta', id: 't', delta: 'xyz' });
    tracker.observe({ type: 'recovery-start', recoveryId: 'rec' });
    tracker.observe({ type: 'tool-call-delta', toolCallId: 'c', delta: '{"a"' });
    tracker.finish(true);
    expect(tracker.segments).toEqual([
      { index: 1, cause: 'start', reasoningChars: 6, textChars: 0, toolArgumentChars: 0 },
      { index: 2, cause: 'retry', reasoningChars: 0, textChars: 3, toolArgumentChars: 0 },
      { index: 3, cause: 'recovery', reasoningChars: 0, textChars: 0, toolArgumentChars: 4 },
    ]);
    expect([tracker.retries, tracker.retryWaitMs, tracker.phase]).toEqual([1, 200, 'finished']);
    expect(tracker.describeSegments()).toBe('seg1 r6/t0 · seg2 r0/t3 · seg3 r0/t0/a4');
  });

  it('agent loop: each model call after the first is a segment; transitions and tool errors are counted (R3.1)', () => {
    const { tracker } = startRun(false);
    const sampleStart = (turnCount: number) => ({ type: 'sample-start' as const, messageId: `m${turnCount}`, model: 'm', maxOutputTokens: undefined, turnCount });
    tracker.observe(sampleStart(1));
    tracker.observe({ type: 'tool-result', result: { type: 'tool-result', toolCallId: 'c1', output: 'failed', isError: true } });
    tracker.observe({ type: 'transition', transition: { reason: 'next_turn', turnCount: 2 } });
    tracker.observe(sampleStart(2));
    tracker.observe({ type: 'text-delta', id: 't', delta: 'ok' });
    expect(tracker.segments.map((segment) => [segment.cause, segment.textChars])).toEqual([
      ['start', 0],
      ['next-sample', 2],
    ]);
    expect([tracker.transitions, tracker.toolErrors]).toEqual([['next_turn'], 1]);
  });
});

describe('ProgressTracker, fail-over (R11.2, R11.5)', () => {
  const hop = (upstream: string, model: string) => ({ upstream, model, protocol: 'chat' as const });
  it('a fail-over closes the failed request\'s segment and names both ends as upstream/model; an open circuit opens none', () => {
    const notices: string[] = [];
    const tracker = new ProgressTracker((notice) => notices.push(notice));
    tracker.observe({ type: 'fallback', from: hop('mock', 'primary'), to: hop('backup', 'second'), reason: 'retry-budget', errorCode: 'OVERLOADED' });
    tracker.observe({ type: 'text-delta', id: 't', delta: 'ok' });
    tracker.observe({ type: 'fallback', from: hop('mock', 'primary'), to: hop('backup', 'second'), reason: 'circuit-open' });
    expect(notices).toEqual(['segment seg1 r0/t0 ended', 'fail-over: mock/primary → backup/second (OVERLOADED, R11.2)', 'segment 2: answering', 'circuit open for mock/primary: straight to backup/second (R11.5)']);
    expect(tracker.segments.map((segment) => [segment.cause, segment.textChars])).toEqual([
      ['start', 0],
      ['fallback', 2],
    ]);
  });
});

describe('ProgressRenderer', () => {
  afterEach(() => vi.useRealTimers());

  it('without a TTY prints plain lines only: no carriage returns or escape codes', () => {
    const { tracker, renderer, written, advance } = startRun(false);
    tracker.observe({ type: 'reasoning-delta', id: 'r', delta: 'think' });
    renderer.update();
    advance(1_500);
    tracker.observe(retry(1, 200));
    tracker.observe({ type: 'error', error: { code: 'STREAM_CUT' } as TurnError });
    tracker.finish(false);
    renderer.end('FAIL long-think-cut/chat');
    const output = written.join('');
    expect(output).not.toMatch(/[\r\x1b]/);
    expect(output.split('\n').filter(Boolean)).toEqual([
      'long-think-cut/chat started',
      'long-think-cut/chat +0.00s segment 1: thinking',
      'long-think-cut/chat +1.50s segment seg1 r5/t0 ended',
      'long-think-cut/chat +1.50s retry 1: RATE_LIMIT (HTTP 429), waiting 200 ms',
      'long-think-cut/chat +1.50s error: STREAM_CUT',
      'long-think-cut/chat +1.50s segment seg2 r0/t0 ended',
      'FAIL long-think-cut/chat',
    ]);
  });

  it('on a TTY redraws one status line in place (phase, elapsed, segments, retries waited), throttled', () => {
    vi.useFakeTimers();
    const { tracker, renderer, written, advance } = startRun(true);
    tracker.observe(retry(1, 250));
    advance(2_000);
    tracker.observe({ type: 'text-delta', id: 't', delta: 'hello' });
    renderer.update();
    const drawsBefore = written.length;
    renderer.update(); // same instant: throttled
    expect(written).toHaveLength(drawsBefore);
    expect(written.at(-1)).toBe('\r\x1b[2Klong-think-cut/chat · answering · 2.00s · seg1 r0/t0 · seg2 r0/t5 · 1 retries, 250 ms waited');
    renderer.end('PASS long-think-cut/chat');
    expect(written.at(-1)).toBe('\r\x1b[2KPASS long-think-cut/chat\n');
  });
});
