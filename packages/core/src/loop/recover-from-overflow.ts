import type { Message } from '../types/message.js';
import type { LoopContext } from './loop-context.js';
import type { AgentLoopState } from './loop-types.js';
import { stripImages } from './strip-messages.js';

/** A hook that throws or returns nothing usable counts as "could not recover" — never a crash. */
async function callHook(run: () => Promise<Message[] | undefined>): Promise<Message[] | undefined> {
  try {
    const messages = await run();
    return Array.isArray(messages) ? messages : undefined;
  } catch {
    return undefined;
  }
}

/**
 * R3.6, lightest first, each step at most once per turn:
 * 1. prompt too long only: the host's cheap `collapse` drain — skipped if the
 *    last transition already was a drain (draining again for the same cause
 *    would loop);
 * 2. the host's `compact` — for a media error with every image stripped
 *    first (collapse cannot remove images, so it is skipped).
 * Returns the next state, or `undefined` when the chain is exhausted.
 */
export async function recoverFromOverflow<Native extends object>(
  context: LoopContext<Native>,
  state: AgentLoopState,
  cause: 'prompt_too_long' | 'media_too_large',
): Promise<AgentLoopState | undefined> {
  const { hooks, signal } = context;
  const { collapse, compact } = hooks;
  if (
    cause === 'prompt_too_long' &&
    collapse !== undefined &&
    !state.hasAttemptedCollapseDrain &&
    state.transition?.reason !== 'collapse_drain_retry'
  ) {
    const drained = await callHook(() => collapse({ messages: state.messages, signal }));
    if (drained !== undefined) {
      return {
        ...state,
        messages: drained,
        hasAttemptedCollapseDrain: true,
        transition: { reason: 'collapse_drain_retry', turnCount: state.turnCount },
      };
    }
  }
  if (compact !== undefined && !state.hasAttemptedReactiveCompact) {
    const input = cause === 'media_too_large' ? stripImages(state.messages) : state.messages;
    const compacted = await callHook(() => compact({ messages: input, signal, cause }));
    if (compacted !== undefined) {
      return {
        ...state,
        messages: compacted,
        hasAttemptedReactiveCompact: true,
        transition: { reason: 'reactive_compact_retry', turnCount: state.turnCount },
      };
    }
  }
  return undefined;
}
