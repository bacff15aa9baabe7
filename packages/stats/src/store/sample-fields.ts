import { PROTOCOLS, USAGE_FIELDS, type Usage, type UsageSample } from '@turnguard/core';
import { createStatsError } from './stats-error.js';

/*
 * R6.1: a physical sample is persisted through this EXPLICIT field list, one
 * reader per field. A property not listed here is never written, whatever the
 * caller passes (a new field must be added here, or it is dropped). Every
 * string reader only lets through identifier-like values, so free text
 * (prompt, thinking, tool output) cannot ride in through a legit field (R4.10).
 */
type FieldReaders = { [K in keyof StoredSample]-?: (value: unknown) => StoredSample[K] };

/**
 * R11.7 fields of a physical sample, filled by the fail-over path: the model
 * a fallback attempt replaced, and whether the request was a mid-answer
 * continuation (R11.6). Absent on every other sample and in older files:
 * the dashboard counts fallbacks and continuations from them.
 */
export interface FailoverSampleFields {
  /** The model this request replaced, when it was a fallback attempt. */
  fallbackFrom?: string | undefined;
  /** True when this request continued an answer cut mid-way (R11.6). */
  continuation?: boolean | undefined;
}

/**
 * A physical sample as stats.json keeps it: core's sample, the fail-over
 * fields, and what a host that owns the transport knows of the request (the
 * gateway, R6.1).
 */
export interface StoredSample extends UsageSample, FailoverSampleFields {
  /**
   * The request ended before any response head came back (a refused or
   * reset connection, an abort while it was in flight): it is still one
   * physical request (R6.1), but the upstream may have seen its head late
   * or never, so its own request log can count one fewer. Absent: a head came
   * (or the host could not tell).
   */
  noResponseHead?: boolean | undefined;
}

const KNOWN_PROTOCOLS = new Set<string>(PROTOCOLS);
const MODEL_PATTERN = /^[A-Za-z0-9][\w.:/@+-]{0,199}$/;
const ERROR_CODE_PATTERN = /^[A-Z][A-Z0-9_]{0,63}$/;
const ID_PATTERN = /^[\w.:-]{1,128}$/;
const WARNING_CODE_PATTERN = /^[a-z][a-z0-9_.:-]{0,63}$/i;
const RESERVED_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
const MAX_WARNINGS = 32;

/** Placeholders stored instead of a value that does not look like an identifier. */
export const UNRECOGNIZED_MODEL = '(unrecognized)';
export const UNRECOGNIZED_ERROR_CODE = 'UNRECOGNIZED';
export const UNRECOGNIZED_WARNING = 'unrecognized_warning';

/** Epoch milliseconds from a number, Date or ISO string; anything else is a typed error. */
export function readTime(value: unknown): number {
  if (value instanceof Date) value = value.getTime();
  if (typeof value === 'string') value = Date.parse(value);
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return Math.round(value);
  throw createStatsError('STATS_INVALID_RECORD', 'stats record field "time" must be epoch milliseconds', { field: 'time' });
}

function readRequiredBoolean(field: string) {
  return (value: unknown): boolean => {
    if (typeof value === 'boolean') return value;
    throw createStatsError('STATS_INVALID_RECORD', `stats record field "${field}" must be a boolean`, { field });
  };
}

function readFlag(value: unknown): boolean {
  return value === true;
}

function readDuration(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

function readCount(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;
}

function readProtocol(value: unknown): UsageSample['protocol'] {
  if (typeof value === 'string' && KNOWN_PROTOCOLS.has(value)) return value as UsageSample['protocol'];
  throw createStatsError('STATS_INVALID_RECORD', 'stats record field "protocol" must be chat, messages or responses', { field: 'protocol' });
}

function readModel(value: unknown): string {
  return typeof value === 'string' && MODEL_PATTERN.test(value) && !RESERVED_KEYS.has(value) ? value : UNRECOGNIZED_MODEL;
}

function readErrorCode(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  return typeof value === 'string' && ERROR_CODE_PATTERN.test(value) ? value : UNRECOGNIZED_ERROR_CODE;
}

function readRecoveryId(value: unknown): string | undefined {
  return typeof value === 'string' && ID_PATTERN.test(value) ? value : undefined;
}

/** Known counts only; an unknown count stays `undefined`, never 0 (R5.1). */
export function readUsage(value: unknown): Usage {
  const source = typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  const usage = {} as Usage;
  for (const field of USAGE_FIELDS) usage[field] = readCount(source[field]);
  return usage;
}

function readWarnings(value: unknown): readonly string[] {
  if (!Array.isArray(value)) return [];
  return value
    .slice(0, MAX_WARNINGS)
    .map((warning) => (typeof warning === 'string' && WARNING_CODE_PATTERN.test(warning) ? warning : UNRECOGNIZED_WARNING));
}

const SAMPLE_FIELD_READERS: FieldReaders = {
  time: readTime,
  protocol: readProtocol,
  model: readModel,
  ok: readRequiredBoolean('ok'),
  errorCode: readErrorCode,
  truncated: readFlag,
  durationMs: (value) => {
    const duration = readDuration(value);
    if (duration !== undefined) return duration;
    throw createStatsError('STATS_INVALID_RECORD', 'stats record field "durationMs" must be a non-negative number', { field: 'durationMs' });
  },
  ttftMs: readDuration,
  decodeWindowMs: readDuration,
  usage: readUsage,
  noUsage: readFlag,
  recoveryId: readRecoveryId,
  attempt: (value) => (value === 1 ? 1 : 0),
  recoveryAttempt: readFlag,
  recoveryScheduled: readFlag,
  recovered: readFlag,
  warnings: readWarnings,
  fallbackFrom: (value) => (value === undefined || value === null ? undefined : readModel(value)),
  continuation: (value) => (value === true ? true : undefined),
  // Kept only when true: most samples had their response head.
  noResponseHead: (value) => (value === true ? true : undefined),
};

/** R6.1 field list, in the order they are written. */
export const SAMPLE_FIELDS = Object.keys(SAMPLE_FIELD_READERS) as ReadonlyArray<keyof StoredSample>;

/**
 * Copies exactly the listed fields out of an untrusted record, validating
 * each. Throws a `TurnError` (STATS_INVALID_RECORD) for a record that is not
 * an object or lacks a required field.
 */
export function pickSampleFields(input: unknown): StoredSample {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw createStatsError('STATS_INVALID_RECORD', 'a stats sample must be an object');
  }
  const source = input as Record<string, unknown>;
  const sample: Record<string, unknown> = {};
  for (const field of SAMPLE_FIELDS) sample[field] = SAMPLE_FIELD_READERS[field](source[field]);
  return sample as unknown as StoredSample;
}
