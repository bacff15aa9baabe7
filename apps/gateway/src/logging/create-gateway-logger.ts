import pino, { type DestinationStream, type Logger } from 'pino';
import { prettyFactory } from 'pino-pretty';
import type { LogFormat, LogLevel } from '../config/inbound-config.js';

export type { Logger as GatewayLogger } from 'pino';

/** Where log lines go: anything with a `write(line)` (the CLI passes stdout). */
export type LogDestination = DestinationStream;

/**
 * The gateway's logger (R8.11): pino, one JSON object per line, or
 * pino-pretty's readable lines. Pretty formats in-process (`prettyFactory`),
 * not as a worker transport, so it needs no extra thread and no resolution of
 * the transport's module path after bundling.
 */
export function createGatewayLogger(level: LogLevel, format: LogFormat, destination: LogDestination): Logger {
  const options = { level, base: null, messageKey: 'msg' };
  if (format === 'pretty') {
    const prettify = prettyFactory({ colorize: false, ignore: 'pid,hostname', translateTime: 'SYS:standard' });
    return pino(options, { write: (line: string) => void destination.write(prettify(line)) });
  }
  return pino(options, destination);
}

/** A logger that writes nothing: an embedded gateway logs only when given a destination. */
export function createSilentLogger(): Logger {
  return pino({ level: 'silent' });
}
