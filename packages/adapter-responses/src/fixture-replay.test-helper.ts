// Test-only helpers (not exported from the package): read the recorded
// Responses streams in /work/shared/fixtures and frame them as wire bytes the
// way `fixtures/README.md` prescribes: `event: <line.type>\ndata: <line>\n\n`.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { DecodedStreamEvent } from '@turnguard/core';

export const FIXTURE_DIR = fileURLToPath(new URL('../../../../shared/fixtures/responses/', import.meta.url));

export function listResponsesFixtures(): string[] {
  return readdirSync(FIXTURE_DIR).filter((name) => name.endsWith('.chunks.txt')).sort();
}

export function readFixtureLines(name: string): string[] {
  return readFileSync(`${FIXTURE_DIR}${name}`, 'utf8').split('\n').filter((line) => line.trim() !== '');
}

export function frameResponsesLines(lines: string[]): string {
  return lines.map((line) => `event: ${(JSON.parse(line) as { type: string }).type}\ndata: ${line}\n\n`).join('');
}

export function streamOfChunks(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
}

/** Splits bytes at the given offsets (sorted, deduplicated, inside the range). */
export function splitBytes(bytes: Uint8Array, offsets: number[]): Uint8Array[] {
  const cuts = [...new Set(offsets.filter((offset) => offset > 0 && offset < bytes.length))].sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let start = 0;
  for (const cut of [...cuts, bytes.length]) {
    chunks.push(bytes.slice(start, cut));
    start = cut;
  }
  return chunks;
}

export async function collectEvents(iterable: AsyncIterable<DecodedStreamEvent>): Promise<DecodedStreamEvent[]> {
  const events: DecodedStreamEvent[] = [];
  for await (const event of iterable) events.push(event);
  return events;
}

/** Concatenated deltas of one kind, e.g. all `text-delta`s. */
export function joinDeltas(events: DecodedStreamEvent[], type: 'text-delta' | 'reasoning-delta' | 'tool-call-delta'): string {
  return events.map((event) => (event.type === type ? event.delta : '')).join('');
}
