import { TurnError } from '@turnguard/core';

/** The config key that changes what a failed listen depends on. */
export type ListenOption = 'port' | 'host';

/** Why a listen failed, in words, and which setting the user changes to fix it. */
function explain(code: string | undefined): { reason: string; option: ListenOption } {
  switch (code) {
    case 'EADDRINUSE':
      return { reason: 'the address is already in use (another gateway, or another program, is listening there)', option: 'port' };
    case 'EACCES':
      return { reason: 'permission denied (ports below 1024 need privileges)', option: 'port' };
    case 'EADDRNOTAVAIL':
      return { reason: 'the address is not one of this machine\'s', option: 'host' };
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return { reason: 'the host name does not resolve', option: 'host' };
    default:
      return { reason: 'the server could not listen', option: 'port' };
  }
}

/**
 * A listen that failed at start-up, as a typed error naming the address and
 * the setting that changes it (R8.9: the gateway refuses to start rather
 * than half-start). `details.option` lets a CLI name its own flag.
 */
export function createListenError(error: unknown, host: string, port: number): TurnError {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const { reason, option } = explain(code);
  const address = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  return new TurnError({
    kind: 'invalid_request',
    code: 'GATEWAY_LISTEN_FAILED',
    retryable: false,
    message: `Cannot listen on ${address}: ${reason}${code === undefined ? '' : ` (${code})`}.`,
    details: { option, address, ...(code === undefined ? {} : { errno: code }) },
    cause: error,
  });
}
