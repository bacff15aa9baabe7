import type { ProbeRunResult } from '../probe-types.js';

const HEADERS = ['scenario', 'protocol', 'outcome', 'requests', 'recovered', 'fail-over', 'retries (waited)', 'time', 'check'] as const;

/** R11: what moved the turn past a failing request — fallbacks (one segment each) and a continuation. */
function describeFailover(result: ProbeRunResult): string {
  const fallbacks = result.segments.filter((segment) => segment.cause === 'fallback').length;
  const continued = result.segments.some((segment) => segment.cause === 'continuation');
  const parts = [...(fallbacks === 0 ? [] : [`${fallbacks} fallback${fallbacks === 1 ? '' : 's'}`]), ...(continued ? ['continued'] : [])];
  return parts.length === 0 ? '-' : parts.join(', ');
}

function describeOutcome(result: ProbeRunResult): string {
  if (result.outcome === 'ok') return result.terminalReason === undefined ? 'ok' : `ok (${result.terminalReason})`;
  return `error ${result.errorCode ?? ''}`.trim();
}

function describeRow(result: ProbeRunResult): string[] {
  return [
    result.scenario,
    result.protocol,
    describeOutcome(result),
    String(result.physicalRequests),
    result.recovered ? 'yes' : 'no',
    describeFailover(result),
    result.retries === 0 ? '0' : `${result.retries} (${result.retryWaitMs} ms)`,
    `${(result.durationMs / 1000).toFixed(2)}s`,
    result.passed ? 'pass' : 'FAIL',
  ];
}

/**
 * The end-of-run table: scenario × protocol with outcome, physical requests,
 * whether recovery happened, fail-overs and continuations, retries and time. Plain text (no colours), so it
 * reads the same in a terminal, a log and a README.
 */
export function formatSummaryTable(results: readonly ProbeRunResult[]): string {
  const rows = [Array.from(HEADERS), ...results.map(describeRow)];
  const widths = HEADERS.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length)));
  const formatRow = (row: string[]): string => row.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join('  ').trimEnd();
  const rule = widths.map((width) => '-'.repeat(width)).join('  ');
  const lines = [formatRow(rows[0] as string[]), rule, ...rows.slice(1).map(formatRow)];
  const failed = results.filter((result) => !result.passed);
  lines.push('', failed.length === 0 ? `all ${results.length} runs behaved as expected` : `${failed.length} of ${results.length} runs did NOT behave as expected:`);
  for (const result of failed) lines.push(`  ${result.scenario}/${result.protocol}: ${result.mismatches.join('; ')}`);
  return `${lines.join('\n')}\n`;
}
