import { describe, expect, it } from 'vitest';
import { collectGarbage } from '../internal/v8-probes.test-helper.js';
import { RecordTemplate } from './record-template.js';

const template = RecordTemplate.learn('{"delta":{"text":"Hi"}}', {
  valueKey: 'text',
  readValue: (parsed) => (parsed as { delta?: { text?: unknown } }).delta?.text,
})!;

describe('RecordTemplate values do not keep the network read they came from (decision 0207)', () => {
  it('200 values kept, each from its own 256 KiB read: the reads are still collected', () => {
    const filler = 256 * 1024;
    collectGarbage();
    const before = process.memoryUsage().heapUsed;
    const kept: string[] = [];
    for (let index = 0; index < 200; index += 1) {
      // Like the framer: the record is a slice of the whole read's text.
      const read = `${'x'.repeat(filler)}data: {"delta":{"text":"a delta of thirty characters ${String(index).padStart(3, '0')}"}}\n\n`;
      const data = read.slice(filler + 6, read.length - 2);
      const value = template.matchValue(data);
      expect(value).toBe(`a delta of thirty characters ${String(index).padStart(3, '0')}`);
      kept.push(value!);
    }
    collectGarbage();
    const retainedBytes = process.memoryUsage().heapUsed - before;
    // Views into the reads would hold 200 × 256 KiB = 50 MiB; copies hold a few KiB.
    expect(retainedBytes).toBeLessThan(8 * 1024 * 1024);
    expect(kept).toHaveLength(200);
  });
});

describe('A learned RecordTemplate does not keep the network read it was learned from (issue 19, decision 0295)', () => {
  it('200 templates kept, each learned from a record in its own 256 KiB read: the reads are still collected', () => {
    const filler = 256 * 1024;
    collectGarbage();
    const before = process.memoryUsage().heapUsed;
    const kept: RecordTemplate[] = [];
    for (let index = 0; index < 200; index += 1) {
      // A stream's first read can be large (a thinking phase in one burst); its decoder keeps the template for the stream.
      const read = `data: {"id":"r${index}","integer":${index},"delta":{"text":"Hi"},"trailer":"${'y'.repeat(20)}"}\n\n${'x'.repeat(filler)}`;
      const data = read.slice(6, read.indexOf('\n'));
      const learned = RecordTemplate.learn(data, {
        valueKey: 'text',
        ignoredIntegerKeys: ['integer'],
        readValue: (parsed) => (parsed as { delta?: { text?: unknown } }).delta?.text,
      });
      expect(learned?.matchValue(data.replace('"Hi"', '"next delta"'))).toBe('next delta');
      kept.push(learned!);
    }
    collectGarbage();
    const retainedBytes = process.memoryUsage().heapUsed - before;
    // Parts that are views into the reads would hold 200 × 256 KiB = 50 MiB; copies hold a few KiB.
    expect(retainedBytes).toBeLessThan(8 * 1024 * 1024);
    expect(kept).toHaveLength(200);
  });
});
