import { rejectOption as rejectInvalidOption } from '../internal/reject-option.js';

/**
 * R4.7 limits with their defaults. Options may only lower them (R4.8): the
 * defaults are the bounds recovery was designed and validated for (R4.7),
 * so a host cannot silently widen them.
 */
export const STREAM_RECOVERY_DEFAULTS = {
  recoveriesPerTurn: 1,
  turnTimeoutMs: 480_000,
  recoverySegmentTimeoutMs: 180_000,
  recoveryMaxOutputTokens: 8192,
  checkpointMaxChars: 131_072,
} as const;

/** Below this remaining output budget a recovery is not worth a request (R4.7). */
export const MIN_RECOVERY_OUTPUT_TOKENS = 512;

export type StreamRecoveryLimit = keyof typeof STREAM_RECOVERY_DEFAULTS;

export interface StreamRecoveryOptions {
  enabled?: boolean;
  /** 0 or 1. */
  recoveriesPerTurn?: number;
  turnTimeoutMs?: number;
  recoverySegmentTimeoutMs?: number;
  recoveryMaxOutputTokens?: number;
  checkpointMaxChars?: number;
  /** The model's known context window in tokens; without it the capacity check cannot be exact. */
  contextWindowTokens?: number;
  /** The model's own output cap, when known (R4.7 "≤ the model's"). */
  modelMaxOutputTokens?: number;
}

/** The effective, validated recovery settings of one turn. */
export type StreamRecoveryConfig =
  | { enabled: false }
  | ({ enabled: true } & { [K in StreamRecoveryLimit]: number } & {
      contextWindowTokens: number | undefined;
      modelMaxOutputTokens: number | undefined;
    });

const LIMIT_NAMES = Object.keys(STREAM_RECOVERY_DEFAULTS) as StreamRecoveryLimit[];
const KNOWN_OPTIONS = new Set<string>(['enabled', 'contextWindowTokens', 'modelMaxOutputTokens', ...LIMIT_NAMES]);

function rejectOption(message: string, option: string): never {
  return rejectInvalidOption('INVALID_STREAM_RECOVERY_OPTION', message, option);
}

function readNonNegativeInteger(value: unknown, option: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    rejectOption(`streamRecovery.${option} must be a non-negative integer.`, option);
  }
  return value;
}

/**
 * Validates `streamRecovery` at call time (R4.8): `false` turns recovery and
 * every client-side time limit off; an object may lower limits; a value above
 * a default throws a `TurnError` naming the option and its default.
 */
export function resolveStreamRecoveryConfig(input: false | StreamRecoveryOptions | undefined): StreamRecoveryConfig {
  if (input === false) return { enabled: false };
  if (input === undefined) input = {};
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    rejectOption('streamRecovery must be false or an options object.', 'streamRecovery');
  }
  for (const key of Object.keys(input)) {
    if (!KNOWN_OPTIONS.has(key)) rejectOption(`streamRecovery.${key} is not a known option; known: ${[...KNOWN_OPTIONS].join(', ')}.`, key);
  }
  if (input.enabled !== undefined && typeof input.enabled !== 'boolean') {
    rejectOption('streamRecovery.enabled must be a boolean.', 'enabled');
  }
  const limits = {} as { [K in StreamRecoveryLimit]: number };
  for (const name of LIMIT_NAMES) {
    const fallback = STREAM_RECOVERY_DEFAULTS[name];
    const given = input[name];
    if (given === undefined) {
      limits[name] = fallback;
      continue;
    }
    const value = readNonNegativeInteger(given, name);
    if (value > fallback) {
      rejectOption(
        `streamRecovery.${name} is ${value}, above its default of ${fallback}; limits may only be lowered (R4.8).`,
        name,
      );
    }
    limits[name] = value;
  }
  if (input.enabled === false) return { enabled: false };
  const positive = (value: number | undefined, option: string): number | undefined => {
    if (value === undefined) return undefined;
    const n = readNonNegativeInteger(value, option);
    if (n === 0) rejectOption(`streamRecovery.${option} must be a positive integer.`, option);
    return n;
  };
  return Object.assign({ enabled: true as const }, limits, {
    contextWindowTokens: positive(input.contextWindowTokens, 'contextWindowTokens'),
    modelMaxOutputTokens: positive(input.modelMaxOutputTokens, 'modelMaxOutputTokens'),
  });
}
