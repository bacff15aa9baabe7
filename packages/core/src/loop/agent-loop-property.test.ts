import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findOrphanToolResults, findUnpairedToolCalls } from '../errors/pairing-diagnostic.js';
import { TurnError } from '../errors/turn-error.js';
import { FallbackSignal } from '../retry/fallback-signal.js';
import type { Message } from '../types/message.js';
import type { TurnEvent } from '../types/turn-event.js';
import {
  collectLoopEvents,
  reasoning,
  startFakeLoop,
  text,
  toolCall,
  type FakeReply,
} from './fake-sampler.test-helper.js';

type Step =
  | { kind: 'text'; end: 'stop' | 'length' }
  | { kind: 'reasoning-only' }
  | { kind: 'tools'; count: number; end: 'tool-calls' | 'length'; cutLast: boolean }
  | { kind: 'error'; error: 'ptl' | 'media' | 'cut' | 'server' | 'fallback' }
  | { kind: 'abort'; atEvent: number; reason: 'interrupt' | 'user' };

const stepArbitrary: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('text' as const), end: fc.constantFrom('stop' as const, 'length' as const) }),
  fc.constant({ kind: 'reasoning-only' as const }),
  fc.record({ kind: fc.constant('tools' as const), count: fc.integer({ min: 1, max: 3 }), end: fc.constantFrom('tool-calls' as const, 'length' as const), cutLast: fc.boolean() }),
  fc.record({ kind: fc.constant('error' as const), error: fc.constantFrom('ptl' as const, 'media' as const, 'cut' as const, 'server' as const, 'fallback' as const) }),
  fc.record({ kind: fc.constant('abort' as const), atEvent: fc.integer({ min: 0, max: 5 }), reason: fc.constantFrom('interrupt' as const, 'user' as const) }),
);

function toReply(step: Step, index: number, controller: AbortController): FakeReply {
  switch (step.kind) {
    case 'text':
      return { events: text(`t${index}`, `text ${index}`), end: step.end };
    case 'reasoning-only':
      return { events: reasoning(`r${index}`, `thought ${index}`, `sig${index}`), end: 'length' };
    case 'tools': {
      const events: TurnEvent[] = [...text(`t${index}`, 'calling')];
      for (let n = 0; n < step.count; n += 1) events.push(...toolCall(`call_${index}_${n}`, 'work', n === step.count - 1 && step.cutLast ? '{"a": "b' : '{"a":1}'));
      return { events, end: step.end };
    }
    case 'error': {
      const overloaded = new TurnError({ kind: 'overloaded', message: 'Overloaded', status: 529 });
      const errors = {
        ptl: new TurnError({ kind: 'prompt_too_long', message: 'too long', status: 400 }),
        media: new TurnError({ kind: 'media_too_large', message: 'too big', status: 400 }),
        cut: new TurnError({ kind: 'stream_cut', message: 'cut' }),
        server: new TurnError({ kind: 'server', message: 'boom', status: 500 }),
        fallback: new FallbackSignal({ fallbackModel: 'model-b', consecutiveOverloads: 3, lastError: overloaded }),
      };
      return { events: [...text(`t${index}`, 'partial'), ...toolCall(`call_${index}_x`, 'work', '{}')], end: errors[step.error] };
    }
    case 'abort':
      return {
        events: [...text(`t${index}`, 'a'), ...toolCall(`call_${index}_a`, 'work', '{}')],
        end: 'tool-calls',
        beforeEvent: { index: step.atEvent, run: () => controller.abort(step.reason) },
      };
    default: {
      const _exhaustive: never = step;
      return _exhaustive;
    }
  }
}

/** Every assistant tool call is answered in the very next message, which is a tool message. */
function expectStrictPairing(messages: readonly Message[]): void {
  expect(findUnpairedToolCalls(messages)).toEqual([]);
  expect(findOrphanToolResults(messages)).toEqual([]);
  messages.forEach((message, index) => {
    const ids = message.content.flatMap((part) => (part.type === 'tool-call' ? [part.toolCallId] : []));
    if (ids.length === 0) return;
    const next = messages[index + 1];
    expect(next?.role).toBe('tool');
    expect(next!.content.map((part) => (part.type === 'tool-result' ? part.toolCallId : ''))).toEqual(ids);
  });
}

describe('runAgentLoop — long-run property (R3.1, R3.4, R3.7, R3.11)', () => {
  it('never sends an orphaned tool_use, never exceeds 3 consecutive continuations, always ends with exactly one terminal', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(stepArbitrary, { minLength: 1, maxLength: 14 }), fc.boolean(), fc.boolean(), async (steps, withHooks, escalate) => {
        const controller = new AbortController();
        let requestsAtAbort = -1;
        controller.signal.addEventListener('abort', () => (requestsAtAbort = sampler.requests.length));
        const replies = steps.map((step, index) => toReply(step, index, controller));
        const short = [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'summary' }] }];
        const { run, sampler } = startFakeLoop(
          replies,
          {
            signal: controller.signal,
            maxTurns: 40,
            escalatedMaxOutputTokens: escalate ? 64000 : false,
            toolHandlers: { work: async () => 'done' },
            hooks: withHooks ? { collapse: async () => short, compact: async () => short, fallbackModel: 'model-b' } : {},
          },
          { events: text('end', 'finished'), end: 'stop' },
        );
        const events = await collectLoopEvents(run);
        const result = await run.result;

        for (const request of sampler.requests) expectStrictPairing(request.prompt.messages);
        expectStrictPairing(result.messages);

        let consecutive = 0;
        for (const transition of result.transitions) {
          if (transition.reason === 'max_output_tokens_recovery') consecutive += 1;
          else if (transition.reason === 'next_turn' || transition.reason === 'max_output_tokens_tool_continue' || transition.reason === 'stop_hook_blocking') consecutive = 0;
          expect(consecutive).toBeLessThanOrEqual(3);
        }
        const terminals = events.filter((event) => event.type === 'terminal');
        expect(terminals).toHaveLength(1);
        expect(events.at(-1)).toBe(terminals[0]);
        // No request after an abort.
        if (controller.signal.aborted) {
          expect(['aborted_streaming', 'aborted_tools']).toContain(result.terminal.reason);
          expect(sampler.requests.length).toBe(requestsAtAbort);
        }
      }),
      { numRuns: 300 },
    );
  });
});
