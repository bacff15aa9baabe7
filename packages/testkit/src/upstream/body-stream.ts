import type { ReplyPlan } from '../wire/reply-plan.js';

/**
 * What a dropped socket looks like to fetch: undici raises
 * `TypeError: terminated` with cause `UND_ERR_SOCKET` ("other side closed").
 * msw cannot drop a real socket (toolchain pitfall 5), so this is an
 * imitation; the loopback server does the real thing.
 */
export function makeTerminatedError(): TypeError {
  const cause = Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' });
  return new TypeError('terminated', { cause });
}

/**
 * The reply body as a pull-driven stream: one chunk per read, each after
 * `chunkDelayMs` of `setTimeout` (looked up at call time, so vitest fake
 * timers drive it). High-water mark 0 means nothing is produced ahead of the
 * reader, so an imitated socket drop errors the stream only after every
 * chunk before it was read.
 */
export function makeBodyStream(plan: ReplyPlan, signal?: AbortSignal): ReadableStream<Uint8Array> {
  let next = 0;
  let pendingTimer: ReturnType<typeof setTimeout> | undefined;
  const stop = (): void => {
    if (pendingTimer !== undefined) clearTimeout(pendingTimer);
    pendingTimer = undefined;
    next = plan.chunks.length;
  };
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        // msw tees every mocked response (its `response:mocked` event gets a clone), so a
        // reader's cancel() never reaches this source; the request's abort signal does.
        signal?.addEventListener(
          'abort',
          () => {
            stop();
            controller.error(signal.reason);
          },
          { once: true },
        );
      },
      async pull(controller) {
        if (signal?.aborted) return;
        if (next >= plan.chunks.length) {
          if (plan.end === 'destroy') controller.error(makeTerminatedError());
          else controller.close();
          return;
        }
        if (plan.chunkDelayMs > 0) {
          await new Promise<void>((resolve) => {
            pendingTimer = setTimeout(resolve, plan.chunkDelayMs);
          });
          pendingTimer = undefined;
        }
        if (signal?.aborted) return;
        const chunk = plan.chunks[next++];
        if (chunk !== undefined) controller.enqueue(chunk);
      },
      cancel() {
        stop();
      },
    },
    { highWaterMark: 0 },
  );
}
