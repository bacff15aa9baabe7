import { describe, expect, it } from 'vitest';
import { haveSameHiddenClass } from '@turnguard/testkit';
import type { ChatCompletionCreateParams } from 'openai/resources/chat/completions';
import { withChatStreaming } from './chat-request-edits.js';

// Issue 19, decision 0291: runTurn holds the streaming body for the whole
// stream, so a hidden class per request is memory per open stream. Node 20's
// V8 gives a warm spread copy that then gains a key (`stream_options`, which
// most clients leave out) a class of its own each time.
const parsedBody = (): ChatCompletionCreateParams =>
  JSON.parse('{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}') as ChatCompletionCreateParams;

function warm<T>(build: (native: ChatCompletionCreateParams) => T): void {
  for (let index = 0; index < 3000; index += 1) build(parsedBody());
}

describe('withChatStreaming keeps one hidden class per request shape (issue 19, decision 0291)', () => {
  it('gives two bodies of the same shape the same hidden class once the site is warm', () => {
    warm(withChatStreaming);
    const first = withChatStreaming(parsedBody());
    expect(first).toEqual({ model: 'm', stream: true, messages: [{ role: 'user', content: 'hi' }], stream_options: { include_usage: true } });
    expect(haveSameHiddenClass(first, withChatStreaming(parsedBody()))).toBe(true);
  });

  it('is a check that can fail: a warm spread copy that gains a key gets a class of its own', () => {
    const spreadCopy = (native: ChatCompletionCreateParams) => ({ ...native, stream_options: { include_usage: true } });
    warm(spreadCopy);
    expect(haveSameHiddenClass(spreadCopy(parsedBody()), spreadCopy(parsedBody()))).toBe(false);
  });
});
