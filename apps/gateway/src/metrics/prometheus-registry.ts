/**
 * A minimal Prometheus registry writing the text exposition format 0.0.4
 * (https://prometheus.io/docs/instrumenting/exposition_formats/): counters and
 * histograms with labels. Hand-written because a client library would be a
 * new dependency for ~100 lines.
 */
export type Labels = Readonly<Record<string, string>>;

function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

function formatLabels(labels: Labels, extra?: [string, string]): string {
  const pairs = Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (extra !== undefined) pairs.push(extra);
  if (pairs.length === 0) return '';
  return `{${pairs.map(([name, value]) => `${name}="${escapeLabelValue(value)}"`).join(',')}}`;
}

function formatNumber(value: number): string {
  if (value === Number.POSITIVE_INFINITY) return '+Inf';
  return Number.isInteger(value) ? String(value) : String(Number(value.toPrecision(12)));
}

interface Metric {
  render(): string;
}

export class Counter implements Metric {
  private readonly values = new Map<string, { labels: Labels; value: number }>();
  constructor(
    readonly name: string,
    private readonly help: string,
  ) {}

  inc(labels: Labels = {}, by = 1): void {
    const key = formatLabels(labels);
    const entry = this.values.get(key);
    if (entry === undefined) this.values.set(key, { labels, value: by });
    else entry.value += by;
  }

  get(labels: Labels = {}): number {
    return this.values.get(formatLabels(labels))?.value ?? 0;
  }

  render(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} counter`];
    for (const [key, entry] of this.values) lines.push(`${this.name}${key} ${formatNumber(entry.value)}`);
    return lines.join('\n');
  }
}

interface HistogramSeries {
  labels: Labels;
  /** Per-bucket counts (not cumulative); the last slot is +Inf. */
  counts: number[];
  sum: number;
  count: number;
}

export class Histogram implements Metric {
  private readonly series = new Map<string, HistogramSeries>();
  constructor(
    readonly name: string,
    private readonly help: string,
    private readonly bounds: readonly number[],
  ) {}

  observe(value: number, labels: Labels = {}): void {
    if (!Number.isFinite(value) || value < 0) return;
    const key = formatLabels(labels);
    let series = this.series.get(key);
    if (series === undefined) {
      series = { labels, counts: new Array<number>(this.bounds.length + 1).fill(0), sum: 0, count: 0 };
      this.series.set(key, series);
    }
    let slot = this.bounds.findIndex((bound) => value <= bound);
    if (slot === -1) slot = this.bounds.length;
    series.counts[slot] = (series.counts[slot] ?? 0) + 1;
    series.sum += value;
    series.count += 1;
  }

  render(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`];
    for (const series of this.series.values()) {
      let cumulative = 0;
      [...this.bounds, Number.POSITIVE_INFINITY].forEach((bound, index) => {
        cumulative += series.counts[index] ?? 0;
        lines.push(`${this.name}_bucket${formatLabels(series.labels, ['le', formatNumber(bound)])} ${cumulative}`);
      });
      lines.push(`${this.name}_sum${formatLabels(series.labels)} ${formatNumber(series.sum)}`);
      lines.push(`${this.name}_count${formatLabels(series.labels)} ${series.count}`);
    }
    return lines.join('\n');
  }
}

export class Registry {
  private readonly metrics: Metric[] = [];

  add<M extends Metric>(metric: M): M {
    this.metrics.push(metric);
    return metric;
  }

  render(): string {
    return `${this.metrics.map((metric) => metric.render()).join('\n')}\n`;
  }
}
