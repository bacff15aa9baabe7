import type { IncomingMessage } from 'node:http';

/**
 * Calls `onIdle` when the client sent no byte of the request body for
 * `idleMs` (R8.9), as nginx's `client_body_timeout` (60 s): a body that
 * stalls part-way would otherwise hold its connection for the whole request
 * time-out. The socket's idle timer does the counting — node:http refreshes
 * it on every read its parser makes — so nothing runs per chunk. A stall
 * that is the gateway's own (bytes received but not yet read: backpressure
 * from a slow upstream) re-arms instead of failing. Off once the body ended.
 */
export function limitBodyIdle(request: IncomingMessage, idleMs: number, onIdle: () => void): void {
  if (request.complete) return;
  const socket = request.socket;
  const stop = (): void => {
    request.off('timeout', onTimeout);
    request.off('end', stop);
    request.off('close', stop);
    // Only the timer set here is cleared: node:http sets the keep-alive one after the response.
    if (socket.timeout === idleMs) socket.setTimeout(0);
  };
  const onTimeout = (): void => {
    if (request.complete) return stop();
    if (request.readableLength > 0) {
      socket.setTimeout(idleMs); // our own backpressure: count again from now
      return;
    }
    stop();
    onIdle();
  };
  // An IncomingMessage 'timeout' listener keeps node:http from destroying the socket itself.
  request.on('timeout', onTimeout);
  request.once('end', stop);
  request.once('close', stop);
  socket.setTimeout(idleMs);
}
