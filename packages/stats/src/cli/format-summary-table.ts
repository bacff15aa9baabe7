import type { StatsSummary } from '../summary/summarize-stats.js';

/** An unknown count prints as "unknown", never as 0 (R5.1). */
function formatCount(value: number | undefined): string {
  return value === undefined ? 'unknown' : value.toLocaleString('en-US');
}

function formatPercent(value: number | undefined): string {
  return value === undefined ? '—' : `${(value * 100).toFixed(1)}%`;
}

function formatNumber(value: number | undefined, unit: string, digits = 0): string {
  return value === undefined ? '—' : `${value.toFixed(digits)} ${unit}`;
}

function renderTable(title: string, rows: Array<[string, string]>): string {
  const width = Math.max(...rows.map(([label]) => label.length));
  return [title, ...rows.map(([label, value]) => `  ${label.padEnd(width)}  ${value}`)].join('\n');
}

function renderSideBySide(left: string, right: string): string {
  const leftLines = left.split('\n');
  const rightLines = right.split('\n');
  const width = Math.max(...leftLines.map((line) => line.length)) + 4;
  const count = Math.max(leftLines.length, rightLines.length);
  return Array.from({ length: count }, (_, index) => `${(leftLines[index] ?? '').padEnd(width)}${rightLines[index] ?? ''}`.trimEnd()).join('\n');
}

/**
 * The terminal summary of `turnguard stats`: physical requests and logical
 * turns side by side, so a recovered cut (one failed request) is not read as
 * a failed turn (R6.6).
 */
export function formatSummaryTable(summary: StatsSummary, path: string): string {
  const { physical, logical, recovery, decodeSpeed, ttftMs, tokens } = summary;
  const physicalTable = renderTable(`Physical requests${physical.estimated ? ' (estimated baseline)' : ''}`, [
    ['requests', formatCount(physical.requests)],
    ['ok', formatCount(physical.ok)],
    ['failed', formatCount(physical.failed)],
    ['no usage', formatCount(physical.noUsage)],
    ['success', formatPercent(physical.successRate)],
  ]);
  const logicalTable = renderTable(`Logical turns${logical.estimated ? ' (estimated baseline)' : ''}`, [
    ['turns', formatCount(logical.turns)],
    ['ok', formatCount(logical.ok)],
    ['recovered', formatCount(logical.recovered)],
    ['failed', formatCount(logical.failed)],
    ['aborted', formatCount(logical.aborted)],
    ['success', formatPercent(logical.successRate)],
  ]);
  const speedTable = renderTable(`Retained window (${formatCount(summary.window.samples)} samples)`, [
    ['recovery rate', `${formatPercent(recovery.rate)} (${recovery.recovered}/${recovery.attempts})`],
    ['decode p50', formatNumber(decodeSpeed.p50, 'tok/s', 1)],
    ['decode p90', formatNumber(decodeSpeed.p90, 'tok/s', 1)],
    ['TTFT p50', formatNumber(ttftMs.p50, 'ms')],
    ['TTFT p90', formatNumber(ttftMs.p90, 'ms')],
    ['TTFT p99', formatNumber(ttftMs.p99, 'ms')],
  ]);
  const tokenTable = renderTable('Known tokens (lifetime)', [
    ['input', formatCount(tokens.inputTokens)],
    ['cached input', formatCount(tokens.cachedInputTokens)],
    ['output', formatCount(tokens.outputTokens)],
    ['reasoning', formatCount(tokens.reasoningTokens)],
    ['total', formatCount(tokens.totalTokens)],
  ]);
  const modelLines = summary.models.slice(0, 10).map((model) => `  ${model.model}  ${formatCount(model.calls)} calls, ${formatCount(model.failedCalls)} failed`);
  return [
    `turnguard stats — ${path}`,
    '',
    renderSideBySide(physicalTable, logicalTable),
    '',
    renderSideBySide(speedTable, tokenTable),
    '',
    'Models (lifetime calls)',
    ...(modelLines.length > 0 ? modelLines : ['  none yet']),
  ].join('\n');
}
