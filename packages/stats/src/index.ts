// The sink contract is core's; re-exported here only for convenience.
export type { KnownUsage, StatsSink, TurnOutcome, TurnRecord, UsageSample } from '@turnguard/core';
export { createStatsStore, type StatsStore, type StatsStoreOptions } from './store/stats-store.js';
export { SAMPLE_FIELDS, UNRECOGNIZED_ERROR_CODE, UNRECOGNIZED_MODEL, UNRECOGNIZED_WARNING, type StoredUsageSample } from './store/sample-fields.js';
export { STORED_TURN_OUTCOMES, deriveStoredTurnOutcome, type RetainedTurn, type StoredTurnOutcome } from './store/stored-turn.js';
export {
  STATS_SCHEMA_VERSION,
  type KnownTokenTotals,
  type LifetimeCounters,
  type LogicalBaseline,
  type LogicalCounters,
  type ModelCounters,
  type StatsFile,
} from './store/stats-file.js';
export { parseStatsFile, estimateLogicalBaseline, type ParsedStatsFile } from './store/migrate-stats-file.js';
export { readStatsFile, type LockSettings, type ReadStatsResult, type WarningListener } from './store/stats-file-io.js';
export { DEFAULT_RETENTION, type Retention } from './store/apply-records.js';
export type { StatsErrorCode } from './store/stats-error.js';
export { summarizeStats, collectDecodeSpeeds, type StatsSummary, type SummarizeOptions, type PercentileSummary, type RecoveryDay } from './summary/summarize-stats.js';
export { computePercentile } from './summary/percentile.js';
export { renderDashboardPage } from './dashboard/dashboard-page.js';
export { startDashboardServer, loadDashboardPayload, type DashboardPayload, type DashboardServer, type DashboardServerOptions } from './dashboard/serve-dashboard.js';
export { runStatsCli, resolveStatsFilePath, STATS_CLI_USAGE, type StatsCliIo, type StatsCliResult } from './cli/run-stats-cli.js';
export { formatSummaryTable } from './cli/format-summary-table.js';
