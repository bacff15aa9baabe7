/*
 * Label values come from what clients send (a model name) and what upstreams
 * answer (an error code), so they are bounded here before they reach a
 * metric: each distinct value is a new time series in every Prometheus that
 * scrapes the gateway (R12.2). Only identifier-shaped values are admitted, so
 * free text (a prompt pasted into `model`, an upstream message) can never
 * become a label (R4.10, R8.5).
 */

/** Model names as providers spell them: `gpt-4.1`, `claude-sonnet-4-5@20250929`, `org/model:tag`. */
const MODEL_PATTERN = /^[A-Za-z0-9][\w.:/@+-]{0,99}$/;
/** turnguard's error codes: `RATE_LIMIT`, `STREAM_CUT`, `GATEWAY_BODY_TOO_LARGE`… */
const CODE_PATTERN = /^[A-Z][A-Z0-9_]{0,63}$/;
/** Named upstreams, fallback reasons: short identifiers. */
const NAME_PATTERN = /^[\w.:-]{1,64}$/;

/** The label for every model past the limit, and for a value that is not a model name. */
export const OTHER_MODEL = 'other';
/** The label for a request that named no model. */
export const NO_MODEL = 'none';
/** The label for a code or name that does not look like one. */
export const UNRECOGNIZED = 'unrecognized';

/** The default number of distinct model labels, besides the declared ones (decision 0380). */
export const DEFAULT_MAX_MODEL_LABELS = 50;

/**
 * Model label values: every declared model (the configured ones), then the
 * first `limit` other models seen, then `other`. First come, first kept: a
 * label never changes meaning while the process runs, so a series is never
 * split between a model's own name and `other`.
 */
export class ModelLabels {
  readonly #declared = new Set<string>();
  readonly #seen = new Set<string>();
  readonly #limit: number;

  constructor(limit = DEFAULT_MAX_MODEL_LABELS) {
    this.#limit = limit;
  }

  /** Models from configuration always get a label of their own. */
  declare(models: Iterable<string>): void {
    for (const model of models) if (MODEL_PATTERN.test(model)) this.#declared.add(model);
  }

  labelOf(model: string | undefined): string {
    if (model === undefined || model === '') return NO_MODEL;
    if (this.#declared.has(model) || this.#seen.has(model)) return model;
    if (!MODEL_PATTERN.test(model) || this.#seen.size >= this.#limit) return OTHER_MODEL;
    this.#seen.add(model);
    return model;
  }
}

/** Whether `value` looks like a model name (and not like text pasted into the field). */
export function isModelName(value: string): boolean {
  return MODEL_PATTERN.test(value);
}

export function codeLabel(code: string | undefined): string {
  return code !== undefined && CODE_PATTERN.test(code) ? code : UNRECOGNIZED;
}

export function nameLabel(name: string): string {
  return NAME_PATTERN.test(name) ? name : UNRECOGNIZED;
}
