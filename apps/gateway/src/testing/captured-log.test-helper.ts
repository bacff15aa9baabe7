/** One pino JSON line as the gateway writes it. */
export interface LogLine {
  level: number;
  msg: string;
  time: number;
  [field: string]: unknown;
}

export interface CapturedLog {
  /** What the gateway writes to (its `logDestination`). */
  destination: { write(line: string): void };
  lines(): LogLine[];
  /** Resolves once `count` lines with message `msg` were written (polls briefly; the access line follows the response's close). */
  waitFor(msg: string, count: number): Promise<LogLine[]>;
}

/**
 * Captures the gateway's JSON log lines. `onWrite` runs as each line is
 * written, so a test can note what else had happened by then.
 */
export function captureLog(onWrite?: (line: LogLine) => void): CapturedLog {
  const written: LogLine[] = [];
  const lines = (): LogLine[] => [...written];
  return {
    destination: {
      write(text) {
        for (const part of text.split('\n')) {
          if (part === '') continue;
          const line = JSON.parse(part) as LogLine;
          written.push(line);
          onWrite?.(line);
        }
      },
    },
    lines,
    async waitFor(msg, count) {
      for (let round = 0; round < 400 && written.filter((line) => line.msg === msg).length < count; round += 1) {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      return lines();
    },
  };
}
