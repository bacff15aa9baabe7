export { runAgentLoop } from './run-agent-loop.js';
export {
  MAX_OUTPUT_TOKENS_RECOVERY_MESSAGE,
  MAX_OUTPUT_TOKENS_RECOVERY_LIMIT,
  DEFAULT_ESCALATED_MAX_OUTPUT_TOKENS,
  INTERRUPTED_MESSAGE,
  INTERRUPTED_FOR_TOOL_USE_MESSAGE,
  INTERRUPTED_TOOL_RESULT,
  FALLBACK_TOOL_RESULT,
  MISSING_TOOL_RESULT,
  CUT_TOOL_RESULT,
  STRIPPED_IMAGE_TEXT,
  describeModelFallback,
} from './loop-messages.js';
export { CONSUMER_STOPPED_REASON } from './create-agent-loop-run.js';
export type { DeprecatedOptionWarning } from './deprecated-options.js';
export { normalizeOutgoingMessages } from './normalize-outgoing-messages.js';
export { stripModelBoundReasoning, stripImages } from './strip-messages.js';
export type {
  AgentLoopEvent,
  AgentLoopHooks,
  AgentLoopResult,
  AgentLoopRun,
  AgentLoopState,
  LoopHookContext,
  LoopTerminal,
  RunAgentLoopOptions,
  SampleTurn,
  SampleTurnInput,
  TerminalReason,
  Transition,
  TransitionReason,
} from './loop-types.js';
