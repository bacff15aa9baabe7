import type { Message, PrefillDialect, Protocol, ToolHandler, TurnSettings, UpstreamTarget, UpstreamTimeLimitOptions, UsageSample } from '@turnguard/core';
import type { LoopbackUpstream } from '@turnguard/testkit/server';


/**
 * Waits used against the embedded mock. The real defaults (R1.3/R1.4: up to
 * 32 s backoff, whatever retry-after says) would make `--all` take minutes,
 * so the mock's waits are shortened and the output says so.
 */
export interface ProbeTiming {
  /** `retry-after-ms` the mock sends on 429/529/503 (server-directed wait, R1.3). */
  serverWaitMs: number;
  /** `initialDelayMs` of the R1.4 backoff for statuses without a server wait. */
  backoffInitialMs: number;
  /** Delay before each SSE record, so live progress has something to show. */
  chunkDelayMs: number;
}

export const MOCK_TIMING: ProbeTiming = { serverWaitMs: 100, backoffInitialMs: 25, chunkDelayMs: 2 };

/**
 * The content the probe sends and the mock answers with. Kept in one place
 * so tests can plant a marker in every piece and prove that no result or
 * trace file holds content (R4.10, R9.2).
 */
export interface ProbeContent {
  /** The user prompt. */
  prompt: string;
  /** The mock's reasoning text (repeated to make a long think). */
  reasoning: string;
  /** The mock's answer text. */
  answer: string;
}

export const DEFAULT_CONTENT: ProbeContent = {
  prompt: 'Think step by step about whether 2^31 - 1 is prime, then answer in one sentence.',
  reasoning: 'Checking divisibility by small primes first, then by the primes up to the square root. ',
  answer: 'Yes: 2^31 - 1 = 2147483647 is a Mersenne prime.',
};

export type ProbeOutcome = 'ok' | 'error';

/** What a scenario must end with for the probe to call it a pass. */
export interface ScenarioExpectation {
  outcome: ProbeOutcome;
  /** The error code when `outcome` is `error` (e.g. `STREAM_CUT`). */
  errorCode?: string;
  physicalRequests: number;
  recovered: boolean;
  retries: number;
  /** Loop scenarios: tool results that came back as errors (R3.12, R3.13). */
  toolErrors?: number;
}

/** Everything a scenario needs to queue its replies on the mock. */
export interface QueueContext {
  upstream: LoopbackUpstream;
  protocol: Protocol;
  timing: ProbeTiming;
  content: ProbeContent;
}

interface ScenarioBase {
  name: string;
  /** One line for `--help` and the summary. */
  summary: string;
  /** False: the scenario needs injected faults, so it runs only against the mock. */
  runsOnRealUpstream: boolean;
  expected: ScenarioExpectation;
  /** Queues the mock's replies, in order. */
  queueReplies(context: QueueContext): void;
  /** Settings on top of the probe's defaults (model, output cap, tools). */
  settings?: Partial<TurnSettings>;
}

/** A single logical turn through `runTurn` (R1, R4). */
export interface TurnScenario extends ScenarioBase {
  engine: 'turn';
}

/** Several model calls through `runAgentLoop` (R3). */
export interface LoopScenario extends ScenarioBase {
  engine: 'loop';
  /** R3.6: the host's compact hook (a narrow, structurally compatible slice of core's `AgentLoopHooks`). */
  compact?: (context: { messages: readonly Message[] }) => Promise<Message[] | undefined>;
  toolHandlers?: Readonly<Record<string, ToolHandler>>;
  /** R3.3: `false` skips escalation so the scenario shows the R3.4 continuation directly. */
  escalatedMaxOutputTokens?: number | false;
  /** The loop's transitions the scenario must show (R3.1), in order. */
  expectedTransitions: readonly string[];
}

/**
 * One or more logical turns through runTurn's fail-over chain (R11): a
 * fallback on the same mock (or another family's route on it), time limits,
 * circuits shared by the turns, continuation. `build` says what each turn
 * asks of runTurn besides the probe's own request.
 */
export interface FailoverScenario extends ScenarioBase {
  engine: 'failover';
  /** The turns run in order, with one `CircuitBreakers` and one clock between them. */
  turns: number;
  /** Moves the shared clock before turn `index` (0-based): a circuit's cool-down passing. */
  advanceBefore?: (index: number) => number;
  /** The chain options of every turn. */
  chain(context: FailoverChainContext): FailoverChainOptions;
}

/** What a fail-over scenario's chain is built from. */
export interface FailoverChainContext {
  protocol: Protocol;
  /** The mock's target for a protocol (the probe's own, or a fallback of another family). */
  targetFor(protocol: Protocol): UpstreamTarget;
}

/** runTurn's fail-over options a scenario sets (R11); the probe adds the circuits and the clock. */
export interface FailoverChainOptions {
  fallbacks: Array<{ protocol: Protocol; model: string; upstream: string; prefill?: PrefillDialect }>;
  prefill?: PrefillDialect;
  timeLimits?: UpstreamTimeLimitOptions;
  continuation?: 'off' | 'prefill';
  /** Circuits shared by the scenario's turns (R11.5). */
  circuit?: { failureThreshold: number; coolDownMs: number };
}

export type ProbeScenario = TurnScenario | LoopScenario | FailoverScenario;

/** A content-free summary of one physical segment as the host saw it. */
export interface SegmentProgress {
  /** 1-based, in the order the segments started. */
  index: number;
  /** Why it started: the first request, a retry, a recovery, the loop's next model call, a fallback or a continuation (R11). */
  cause: 'start' | 'retry' | 'recovery' | 'next-sample' | 'fallback' | 'continuation';
  reasoningChars: number;
  textChars: number;
  toolArgumentChars: number;
}

/** One row of the summary and of `result.json`: numbers, codes and ids only. */
export interface ProbeRunResult {
  scenario: string;
  protocol: Protocol;
  engine: ProbeScenario['engine'];
  /** Against a real upstream only the outcome is judged. */
  expected: Partial<ScenarioExpectation>;
  outcome: ProbeOutcome;
  errorCode: string | undefined;
  physicalRequests: number;
  recovered: boolean;
  retries: number;
  retryWaitMs: number;
  durationMs: number;
  /** Loop scenarios: the terminal reason and the transitions (R3.1, R3.11). */
  terminalReason: string | undefined;
  transitions: string[];
  toolErrors: number;
  /** Empty when every expectation held. */
  mismatches: string[];
  passed: boolean;
  segments: SegmentProgress[];
  samples: UsageSample[];
}
