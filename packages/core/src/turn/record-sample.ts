import { buildUsageSample } from './build-segment-record.js';
import type { Turn } from './turn.js';
import type { SegmentRecord } from './turn-result.js';

export interface SampleRecovery {
  recoveryId?: string;
  recoveryScheduled?: boolean;
  recovered?: boolean;
}

/** One physical request's sample (R6.1); the warnings snapshot is taken now and never changes afterwards (R4.11). */
export function recordSample<Native extends object>(turn: Turn<Native>, record: SegmentRecord, recovery: SampleRecovery = {}): void {
  turn.recordUsage(() =>
    buildUsageSample(record, {
      protocol: turn.options.adapter.protocol,
      warnings: turn.warnings,
      recoveryId: recovery.recoveryId,
      recoveryScheduled: recovery.recoveryScheduled ?? false,
      recovered: recovery.recovered ?? false,
    }),
  );
}
