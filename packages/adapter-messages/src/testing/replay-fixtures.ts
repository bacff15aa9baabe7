/**
 * Test-only helpers (never exported from the package): read the recorded
 * Messages streams from the shared fixtures and frame them as wire bytes the
 * way `/work/shared/fixtures/README.md` says: `event: <line.type>\ndata: <line>\n\n`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { DecodedStreamEvent } from '@turnguard/core';

export const MESSAGES_FIXTURES_DIR = fileURLToPath(new URL('../../../../../shared/fixtures/messages/', import.meta.url));

export interface RecordedStream {
  name: string;
  /** The JSON payload lines exactly as recorded. */
  lines: string[];
}

export function readMessagesFixtures(): RecordedStream[] {
  return readdirSync(MESSAGES_FIXTURES_DIR)
    .filter((file) => file.endsWith('.chunks.txt'))
    .sort()
    .map((file) => ({
      name: file.replace(/\.chunks\.txt$/, ''),
      lines: readFileSync(`${MESSAGES_FIXTURES_DIR}${file}`, 'utf8')
        .split('\n')
        .filter((line) => line.trim() !== ''),
    }));
}

export function frameRecordedLine(line: string): string {
  const type = (JSON.parse(line) as { type: string }).type;
  return `event: ${type}\ndata: ${line}\n\n`;
}

export function frameRecordedLines(lines: string[]): string {
  return lines.map(frameRecordedLine).join('');
}

/** A body that delivers `text` as UTF-8 bytes cut at the given byte offsets. */
export function streamOfBytes(text: string, cutOffsets: number[] = []): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  const bounds = [...new Set([0, ...cutOffsets.filter((offset) => offset > 0 && offset < bytes.length), bytes.length])].sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  for (let i = 0; i + 1 < bounds.length; i += 1) chunks.push(bytes.slice(bounds[i], bounds[i + 1]));
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = chunks.shift();
      if (next === undefined) controller.close();
      else controller.enqueue(next);
    },
  });
}

export async function collectEvents(events: AsyncIterable<DecodedStreamEvent>): Promise<DecodedStreamEvent[]> {
  const collected: DecodedStreamEvent[] = [];
  for await (const event of events) collected.push(event);
  return collected;
}

/** Deterministic PRNG (mulberry32) so a failing random split can be replayed from its seed. */
export function createSeededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
