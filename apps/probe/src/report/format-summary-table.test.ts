/** R9.1, R11: the end-of-run table says what moved a turn past a failing request. */
import { describe, expect, it } from 'vitest';
import type { ProbeRunResult, SegmentProgress } from '../probe-types.js';
import { formatSummaryTable } from './format-summary-table.js';

const segment = (index: number, cause: SegmentProgress['cause']): SegmentProgress => ({ index, cause, reasoningChars: 0, textChars: 4, toolArgumentChars: 0 });

function result(scenario: string, causes: Array<SegmentProgress['cause']>): ProbeRunResult {
  return {
    scenario,
    protocol: 'chat',
    engine: 'turn',
    expected: {},
    outcome: 'ok',
    errorCode: undefined,
    physicalRequests: causes.length,
    recovered: false,
    retries: causes.filter((cause) => cause === 'retry').length,
    retryWaitMs: 80,
    durationMs: 170,
    terminalReason: undefined,
    transitions: [],
    toolErrors: 0,
    mismatches: [],
    passed: true,
    segments: causes.map((cause, index) => segment(index + 1, cause)),
    samples: [],
  };
}

describe('formatSummaryTable', () => {
  it('names the fallbacks and the continuation of each run, a dash when there were none', () => {
    const table = formatSummaryTable([
      result('fail-over', ['start', 'retry', 'retry', 'fallback']),
      result('continuation', ['start', 'continuation']),
      result('plain', ['start']),
    ]);
    const rows = table.split('\n').slice(2, 5).map((line) => line.split(/\s{2,}/));
    expect(rows.map((row) => row[5])).toEqual(['1 fallback', 'continued', '-']);
    expect(table.split('\n')[0]).toMatch(/recovered +fail-over +retries \(waited\)/);
  });
});
