import { runTurn } from '../turn/run-turn.js';
import { agentLoop, createInitialState } from './agent-loop.js';
import { describeDeprecatedHooks, withLeadingEvents } from './deprecated-options.js';
import { CONSUMER_STOPPED_REASON, createAgentLoopRun } from './create-agent-loop-run.js';
import type { LoopContext } from './loop-context.js';
import { DEFAULT_ESCALATED_MAX_OUTPUT_TOKENS } from './loop-messages.js';
import type { AgentLoopRun, RunAgentLoopOptions, SampleTurn } from './loop-types.js';
import { createRandomId } from '../internal/random-id.js';
import { rejectOption as rejectInvalidOption } from '../internal/reject-option.js';

function rejectOption(message: string, option: string): never {
  return rejectInvalidOption('INVALID_AGENT_LOOP_OPTION', message, option);
}

function isPositiveInteger(value: unknown): boolean {
  return typeof value === 'number' && Number.isInteger(value) && value > 0;
}

function validateOptions<Native extends object>(options: RunAgentLoopOptions<Native>): void {
  if (typeof options !== 'object' || options === null) rejectOption('runAgentLoop needs an options object.', 'options');
  if (typeof options.adapter?.buildRequest !== 'function') rejectOption('runAgentLoop needs an adapter with buildRequest().', 'adapter');
  if (!Array.isArray(options.prompt?.messages)) rejectOption('runAgentLoop needs prompt.messages (an array).', 'prompt');
  if (typeof options.settings?.model !== 'string' || options.settings.model === '') rejectOption('runAgentLoop needs settings.model.', 'settings');
  if (options.maxTurns !== undefined && !isPositiveInteger(options.maxTurns)) rejectOption('maxTurns must be a positive integer.', 'maxTurns');
  const escalated = options.escalatedMaxOutputTokens;
  if (escalated !== undefined && escalated !== false && !isPositiveInteger(escalated)) {
    rejectOption('escalatedMaxOutputTokens must be a positive integer or false.', 'escalatedMaxOutputTokens');
  }
  if (options.toolHandlers !== undefined && (typeof options.toolHandlers !== 'object' || options.toolHandlers === null)) {
    rejectOption('toolHandlers must be an object of functions by tool name.', 'toolHandlers');
  }
  if (options.sampleTurn === undefined && typeof options.target?.baseUrl !== 'string') rejectOption('runAgentLoop needs target.baseUrl.', 'target');
}

/** The default way to make one model call: `runTurn` (R1 retries, R4 recovery, R5 usage, R6 stats). */
function createRunTurnSampler<Native extends object>(options: RunAgentLoopOptions<Native>): SampleTurn<Native> {
  return ({ request, signal, retry }) =>
    runTurn({
      adapter: options.adapter,
      request,
      target: options.target,
      fetch: options.fetch,
      retry,
      streamRecovery: options.streamRecovery,
      signal,
      stats: options.stats,
      now: options.now,
    });
}

/**
 * The agent loop (R3): samples, runs the host's tools, feeds results back,
 * and recovers from truncation, prompt-too-long, media errors, overloads and
 * interrupts until a typed terminal (R3.11). Returns at once; the loop starts
 * when the host pulls the first event or awaits `result`. Bad options throw a
 * `TurnError` here.
 */
export function runAgentLoop<Native extends object>(options: RunAgentLoopOptions<Native>): AgentLoopRun {
  validateOptions(options);
  const stopController = new AbortController();
  const signal = options.signal === undefined ? stopController.signal : AbortSignal.any([options.signal, stopController.signal]);
  const tools = options.tools ?? options.settings.tools;
  const context: LoopContext<Native> = {
    adapter: options.adapter,
    settings: { ...options.settings, ...(tools === undefined ? {} : { tools }) },
    handlers: options.toolHandlers ?? {},
    onToolError: options.onToolError,
    hooks: options.hooks ?? {},
    signal,
    maxTurns: options.maxTurns,
    escalatedMaxOutputTokens: options.escalatedMaxOutputTokens ?? DEFAULT_ESCALATED_MAX_OUTPUT_TOKENS,
    retry: options.retry ?? {},
    deadlineAt: options.deadlineAt,
    now: options.now ?? Date.now,
    createId: options.createId ?? createRandomId,
    sampleTurn: options.sampleTurn ?? createRunTurnSampler(options),
    model: options.settings.model,
    fallbackUsed: false,
    transitions: [],
    state: createInitialState([...options.prompt.messages]),
  };
  return createAgentLoopRun({
    start: () => withLeadingEvents(describeDeprecatedHooks(context.hooks), agentLoop(context)),
    stop: () => stopController.abort(CONSUMER_STOPPED_REASON),
    describeCrash: (error) => {
      const terminal = { reason: 'model_error' as const, error, finishReason: undefined };
      return { terminal, messages: context.state.messages, transitions: [...context.transitions], turnCount: context.state.turnCount, model: context.model };
    },
  });
}
