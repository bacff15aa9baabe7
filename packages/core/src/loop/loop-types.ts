import type { ProtocolAdapter, UpstreamTarget } from '../adapter/protocol-adapter.js';
import type { DeprecatedOptionWarning } from './deprecated-options.js';
import type { RefreshCredentialsHook } from '../retry/refreshed-credentials.js';
import type { TurnError } from '../errors/turn-error.js';
import type { RetryOptions } from '../retry/with-retry.js';
import type { ToolErrorReport } from '../tools/execute-tool.js';
import type { ToolHandler } from '../tools/tool-handler.js';
import type { StreamRecoveryOptions } from '../turn/recovery-config.js';
import type { FetchFunction } from '../turn/send-request.js';
import type { StatsSink } from '../turn/stats-sink.js';
import type { TurnRun } from '../turn/turn-result.js';
import type { FinishReason } from '../types/finish-reason.js';
import type { Message } from '../types/message.js';
import type { Prompt } from '../types/prompt.js';
import type { ToolDefinition } from '../types/tool-definition.js';
import type { ToolResultPart } from '../types/tool-result-part.js';
import type { TurnEvent } from '../types/turn-event.js';
import type { TurnSettings } from '../types/turn-settings.js';

/**
 * Why the loop went round again (R3.1), after Claude Code's `Continue`
 * transitions (decision 0090).
 */
export type TransitionReason =
  /** Tool results were fed back for the next model call. */
  | 'next_turn'
  /** R3.3: resend once with the escalated output cap. */
  | 'max_output_tokens_escalate'
  /** R3.4: a meta continuation message was appended (counts towards the limit of 3). */
  | 'max_output_tokens_recovery'
  /** R3.4: truncated response with tool calls: tools ran, meta message appended, count not used up. */
  | 'max_output_tokens_tool_continue'
  /** R3.6: the host's cheap `collapse` hook shortened the conversation. */
  | 'collapse_drain_retry'
  /** R3.6: the host's `compact` hook summarised the conversation (images stripped for media errors). */
  | 'reactive_compact_retry'
  /** R3.9: switched to the fallback model after the retry layer's overload signal. */
  | 'model_fallback'
  /** A stop hook asked the model to go on. */
  | 'stop_hook_blocking';

export interface Transition {
  reason: TransitionReason;
  /** The turn the transition leads into. */
  turnCount: number;
  /** R3.4: which consecutive continuation this is (1..3). */
  attempt?: number;
}

/** R3.11: how the loop ended. */
export type TerminalReason =
  | 'completed'
  | 'aborted_streaming'
  | 'aborted_tools'
  | 'prompt_too_long'
  | 'image_error'
  | 'max_output_tokens'
  | 'stream_cut'
  | 'model_error'
  | 'max_turns'
  | 'deadline';

export interface LoopTerminal {
  reason: TerminalReason;
  /** The error shown to the host, when the loop ended on one. */
  error: TurnError | undefined;
  /** Finish reason of the last sampled response, when it ended with a terminal frame. */
  finishReason: FinishReason | undefined;
}

/** R3.1: the one explicit state the loop goes round with. */
export interface AgentLoopState {
  messages: Message[];
  maxOutputTokensRecoveryCount: number;
  hasAttemptedReactiveCompact: boolean;
  /** R3.6: the cheap drain runs once per turn (beside the R3.1 fields: only the overflow chain reads it). */
  hasAttemptedCollapseDrain: boolean;
  maxOutputTokensOverride: number | undefined;
  turnCount: number;
  transition: Transition | undefined;
}

/**
 * What the host sees: every sampled TurnEvent (minus withheld errors, R3.2)
 * plus loop events. `sample-start` names the message the following content
 * events build, so a `tombstone` (R3.8) can retract it.
 */
export type AgentLoopEvent =
  | TurnEvent
  | { type: 'sample-start'; messageId: string; model: string; maxOutputTokens: number | undefined; turnCount: number }
  /** A message appended to the transcript (assistant, tool results, meta, interruption, API error). */
  | { type: 'message'; messageId: string; message: Message }
  | { type: 'tool-result'; result: ToolResultPart }
  | { type: 'transition'; transition: Transition }
  | { type: 'terminal'; terminal: LoopTerminal }
  /** A deprecated option was given (decision 0261): the loop still honours it. */
  | DeprecatedOptionWarning;

export interface AgentLoopResult {
  terminal: LoopTerminal;
  /** The transcript: prompt messages plus everything the loop appended (meta messages included). */
  messages: Message[];
  /** Every transition in order (R3.1). */
  transitions: Transition[];
  turnCount: number;
  /** The model in use at the end (differs from settings.model after a fallback, R3.9). */
  model: string;
}

/** A host hook's context. */
export interface LoopHookContext {
  messages: readonly Message[];
  signal: AbortSignal;
}

export interface AgentLoopHooks {
  /** R3.6: cheap drain of staged context collapses; `undefined` = nothing to drain. */
  collapse?: (context: LoopHookContext) => Promise<Message[] | undefined>;
  /**
   * R3.6: summarise the conversation; `undefined` = could not. For a
   * media-too-large error the messages come with images already stripped.
   */
  compact?: (context: LoopHookContext & { cause: 'prompt_too_long' | 'media_too_large' }) => Promise<Message[] | undefined>;
  /** Stop hooks: run when the model completed normally, never after an API error (R3.11). Returned messages continue the loop. */
  onStop?: (context: LoopHookContext) => Promise<{ continueWith: Message[] } | undefined | void>;
  /**
   * R1.7, passed to the retry layer; may return the new credentials.
   * @deprecated Use `retry.refreshCredentials` (one spelling per option, decision 0261).
   */
  refreshCredentials?: RefreshCredentialsHook;
  /**
   * R1.9 / R3.9: the model to switch to after repeated overloads.
   * @deprecated Use `retry.fallbackModel` (one spelling per option, decision 0261).
   */
  fallbackModel?: string;
}

/** What one model call needs; the seam the loop samples through (defaults to `runTurn`). */
export interface SampleTurnInput<Native extends object> {
  request: Native;
  signal: AbortSignal;
  retry: RetryOptions;
}

export type SampleTurn<Native extends object> = (input: SampleTurnInput<Native>) => TurnRun;

export interface RunAgentLoopOptions<Native extends object> {
  adapter: ProtocolAdapter<Native>;
  prompt: Prompt;
  settings: TurnSettings;
  /** Tool declarations sent to the model; defaults to `settings.tools`. */
  tools?: ToolDefinition[];
  /** The host's tool implementations by name, run through `executeTool` (R3.12–R3.14). */
  toolHandlers?: Readonly<Record<string, ToolHandler>>;
  onToolError?: (report: ToolErrorReport) => void;
  target: UpstreamTarget;
  fetch?: FetchFunction;
  hooks?: AgentLoopHooks;
  signal?: AbortSignal;
  /** Model calls allowed before `max_turns`; unlimited by default. */
  maxTurns?: number;
  /** R3.3: the escalated cap; `false` turns escalation off (providers where it is not verified). Default 64000. */
  escalatedMaxOutputTokens?: number | false;
  retry?: RetryOptions;
  streamRecovery?: false | StreamRecoveryOptions;
  stats?: StatsSink;
  /** Epoch ms after which no further request is sent (`deadline`). */
  deadlineAt?: number;
  now?: () => number;
  createId?: () => string;
  /** Test seam: how one model call is made. Defaults to `runTurn`. */
  sampleTurn?: SampleTurn<Native>;
}

/** What the host holds: the events, plus the result once the loop has ended. */
export interface AgentLoopRun extends AsyncIterable<AgentLoopEvent> {
  /** Resolves when the loop has ended (never rejects); awaiting it without iterating drains the events. */
  readonly result: Promise<AgentLoopResult>;
}
