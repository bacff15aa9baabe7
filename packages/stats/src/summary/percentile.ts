/** Nearest-rank percentile of unsorted values; `undefined` when there are none. */
export function computePercentile(values: readonly number[], percent: number): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((percent / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

/** A ratio that says "unknown" instead of dividing by zero. */
export function computeRate(part: number, whole: number): number | undefined {
  return whole === 0 ? undefined : part / whole;
}
