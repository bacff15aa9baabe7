import type { AgentLoopEvent, AgentLoopHooks } from './loop-types.js';

/** An option kept for compatibility, and the one spelling to use instead (decision 0261). */
export interface DeprecatedOptionWarning {
  type: 'warning';
  code: 'DEPRECATED_OPTION';
  option: 'hooks.fallbackModel' | 'hooks.refreshCredentials';
  replacement: 'retry.fallbackModel' | 'retry.refreshCredentials';
  message: string;
}

const DEPRECATED_HOOKS = [
  ['fallbackModel', 'hooks.fallbackModel', 'retry.fallbackModel'],
  ['refreshCredentials', 'hooks.refreshCredentials', 'retry.refreshCredentials'],
] as const;

/**
 * One spelling per option: `retry.fallbackModel` and `retry.refreshCredentials`
 * are the options (runTurn takes the same `retry` object); the `hooks.*`
 * spellings still work when `retry.*` is not set, and each one given gets a
 * typed warning event at the start of the loop.
 */
export function describeDeprecatedHooks(hooks: AgentLoopHooks): DeprecatedOptionWarning[] {
  return DEPRECATED_HOOKS.filter(([key]) => hooks[key] !== undefined).map(([, option, replacement]) => ({
    type: 'warning',
    code: 'DEPRECATED_OPTION',
    option,
    replacement,
    message: `${option} is deprecated: use ${replacement} (${option} is ignored when ${replacement} is set).`,
  }));
}

/** The loop with the given events first. */
export async function* withLeadingEvents<Return>(
  events: readonly AgentLoopEvent[],
  loop: AsyncGenerator<AgentLoopEvent, Return, undefined>,
): AsyncGenerator<AgentLoopEvent, Return, undefined> {
  for (const event of events) yield event;
  return yield* loop;
}
