import { describe, expect, it } from 'vitest';
import { collectGarbage } from '../internal/collect-garbage.test-helper.js';
import { RecordTemplate } from './record-template.js';

const FILLER = 256 * 1024;
const READS = 200;
const readText = (parsed: unknown): unknown => (parsed as { delta?: { text?: unknown } }).delta?.text;
const template = RecordTemplate.learn('{"delta":{"text":"Hi"}}', { valueKey: 'text', readValue: readText })!;

/**
 * Heap still used after a full GC once `keepFromRead(k)` ran for READS reads
 * of 256 KiB each and its results are kept. Views into the reads would hold
 * READS × 256 KiB = 50 MiB; copies hold a few KiB.
 */
function retainedBytes(keepFromRead: (index: number) => unknown): number {
  collectGarbage();
  const before = process.memoryUsage().heapUsed;
  const kept: unknown[] = [];
  for (let index = 0; index < READS; index += 1) kept.push(keepFromRead(index));
  collectGarbage();
  const retained = process.memoryUsage().heapUsed - before;
  expect(kept).toHaveLength(READS);
  return retained;
}

describe('RecordTemplate values do not keep the network read they came from (decision 0320)', () => {
  it('200 values kept, each from its own 256 KiB read: the reads are still collected', () => {
    const retained = retainedBytes((index) => {
      // Like the framer: the record is a slice of the whole read's text.
      const read = `${'x'.repeat(FILLER)}data: {"delta":{"text":"a delta of thirty characters ${String(index).padStart(3, '0')}"}}\n\n`;
      const value = template.matchValue(read.slice(FILLER + 6, read.length - 2));
      expect(value).toBe(`a delta of thirty characters ${String(index).padStart(3, '0')}`);
      return value;
    });
    expect(retained).toBeLessThan(8 * 1024 * 1024);
  });
});

describe('A learned RecordTemplate does not keep the network read it was learned from (decision 0320)', () => {
  it('200 templates kept, each learned from a record in its own 256 KiB read: the reads are still collected', () => {
    const retained = retainedBytes((index) => {
      // A stream's first read can be large (a thinking phase in one burst); its decoder keeps the template for the stream.
      const read = `data: {"id":"r${index}","integer":${index},"delta":{"text":"Hi"},"trailer":"${'y'.repeat(20)}"}\n\n${'x'.repeat(FILLER)}`;
      const data = read.slice(6, read.indexOf('\n'));
      const learned = RecordTemplate.learn(data, { valueKey: 'text', ignoredIntegerKeys: ['integer'], readValue: readText });
      expect(learned?.matchValue(data.replace('"Hi"', '"next delta"'))).toBe('next delta');
      return learned;
    });
    expect(retained).toBeLessThan(8 * 1024 * 1024);
  });
});
