import type { ProtocolAdapter } from '../adapter/protocol-adapter.js';
import type { RetryOptions } from '../retry/with-retry.js';
import type { ToolErrorReport } from '../tools/execute-tool.js';
import type { ToolHandler } from '../tools/tool-handler.js';
import type { TurnSettings } from '../types/turn-settings.js';
import type { AgentLoopHooks, AgentLoopState, SampleTurn, Transition } from './loop-types.js';

/** Resolved options plus what changes across iterations but is not model-visible state. */
export interface LoopContext<Native extends object> {
  adapter: ProtocolAdapter<Native>;
  settings: TurnSettings;
  handlers: Readonly<Record<string, ToolHandler>>;
  onToolError: ((report: ToolErrorReport) => void) | undefined;
  hooks: AgentLoopHooks;
  /** The host's signal, linked with the host stopping iteration. */
  signal: AbortSignal;
  maxTurns: number | undefined;
  escalatedMaxOutputTokens: number | false;
  retry: RetryOptions;
  deadlineAt: number | undefined;
  now: () => number;
  createId: () => string;
  sampleTurn: SampleTurn<Native>;
  /** The model in use; switched by a fallback (R3.9). */
  model: string;
  /** R3.9: one switch per loop; after it the retry layer gets no fallback model. */
  fallbackUsed: boolean;
  transitions: Transition[];
  /** Latest state, for the result when the loop ends. */
  state: AgentLoopState;
}
