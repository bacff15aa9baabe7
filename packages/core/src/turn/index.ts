export { runTurn, DEFAULT_REQUEST_ID_HEADER, type ResponseBodyInfo, type RunTurnOptions } from './run-turn.js';
export type {
  TurnRun,
  TurnResult,
  SegmentRecord,
  SegmentOutcome,
  AggregatedTurnUsage,
  TurnRecovery,
} from './turn-result.js';
export type { StatsSink, UsageSample, TurnRecord, TurnOutcome, KnownUsage } from './stats-sink.js';
export {
  STREAM_RECOVERY_DEFAULTS,
  MIN_RECOVERY_OUTPUT_TOKENS,
  resolveStreamRecoveryConfig,
  type StreamRecoveryOptions,
  type StreamRecoveryConfig,
  type StreamRecoveryLimit,
} from './recovery-config.js';
export {
  decideRecovery,
  computeRecoveryOutputBudget,
  type RecoveryDecision,
  type RecoverySkipReason,
} from './decide-recovery.js';
export { RECOVERY_INSTRUCTION, buildCheckpointMessage } from './checkpoint-message.js';
export type { FetchFunction, FetchResponse, FetchResponseHeaders } from './send-request.js';
export type { FailoverTarget, PrefillDialect } from './failover-options.js';
export type { ChainEntry } from './chain-run.js';
export type { BodyKind } from './run-turn.js';
