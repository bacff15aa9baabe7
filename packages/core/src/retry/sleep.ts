import { createAbortedError } from '../errors/create-aborted-error.js';

/** The largest delay setTimeout honours (a signed 32-bit millisecond count). */
const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

export const DEFAULT_HEARTBEAT_INTERVAL_MS = 30_000;

export interface HeartbeatEvent {
  waitedMs: number;
  remainingMs: number;
}

export interface SleepOptions {
  signal?: AbortSignal;
  /** Called every `heartbeatIntervalMs` while the sleep still has time left (R1.11). */
  onHeartbeat?: (event: HeartbeatEvent) => void;
  heartbeatIntervalMs?: number;
}

/**
 * Waits `ms`, abortably (R1.6): an abort ends the wait at once and rejects
 * with the `ABORTED` TurnError; an already-aborted signal rejects without
 * waiting. Long waits are cut into heartbeat slices so hosts (CI, Lambda)
 * that kill idle sessions see life (R1.11: a heartbeat at least every 30 s).
 */
export function sleep(ms: number, options: SleepOptions = {}): Promise<void> {
  const { signal, onHeartbeat } = options;
  const totalMs = Number.isFinite(ms) && ms > 0 ? ms : 0;
  const intervalMs =
    options.heartbeatIntervalMs !== undefined && options.heartbeatIntervalMs > 0
      ? options.heartbeatIntervalMs
      : DEFAULT_HEARTBEAT_INTERVAL_MS;

  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(createAbortedError(signal.reason));
      return;
    }
    let waitedMs = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;

    const onAbort = (): void => {
      clearTimeout(timer);
      reject(createAbortedError(signal?.reason));
    };
    const finish = (): void => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    };
    const scheduleSlice = (): void => {
      const remainingMs = totalMs - waitedMs;
      if (remainingMs <= 0) {
        finish();
        return;
      }
      // setTimeout turns a delay above 2^31-1 ms (~24.8 days) into 1 ms (Node docs), so long waits are sliced.
      const sliceMs = Math.min(remainingMs, onHeartbeat === undefined ? MAX_TIMER_DELAY_MS : intervalMs);
      timer = setTimeout(() => {
        waitedMs += sliceMs;
        const left = totalMs - waitedMs;
        if (left > 0 && onHeartbeat !== undefined) {
          // A throwing listener must not turn a wait into a failure.
          try {
            onHeartbeat({ waitedMs, remainingMs: left });
          } catch {
            /* ignored on purpose */
          }
        }
        scheduleSlice();
      }, sliceMs);
    };

    signal?.addEventListener('abort', onAbort, { once: true });
    scheduleSlice();
  });
}
