import { PROTOCOLS, TurnError, type PrefillDialect, type Protocol } from '@turnguard/core';
import { z } from 'zod';

/**
 * The `routing` section of the gateway's config file (R11.1), validated with
 * zod (decision 0404). Messages name the key and list the valid ones, and
 * never quote a value: a value in the wrong place may be a key (R8.5).
 */

/** Where an upstream's key comes from; the config never holds a key itself (R8.5). */
export type KeySource =
  /** The client's own auth headers pass through (a client that holds a key for this provider). */
  | { from: 'client' }
  /** The gateway's environment variable `name`. */
  | { from: 'env'; name: string }
  /** The client's key when it sent one, else `name` from the environment (today's rule for the three routes). */
  | { from: 'client-or-env'; name: string };

export interface UpstreamSettings {
  protocol: Protocol;
  /** Without a trailing slash; Chat/Responses bases include `/v1`, the Messages base need not (decision 0260). */
  baseUrl: string;
  keySource: KeySource;
  /**
   * How this upstream takes a continuation's prefill (R11.6, decision 0401);
   * `false`: never. Absent: Anthropic's own dialect on a Messages upstream,
   * none on Chat or Responses (OpenAI reads a trailing assistant message as
   * a finished turn). Only set when the config names it.
   */
  prefill?: PrefillDialect | false;
}

export interface ModelRoute {
  upstream: string;
  /** The name the upstream knows the model by; the config key is what clients send. */
  model: string;
}

/** The validated `routing` section; the simple form's upstreams are added when the table is built. */
export interface RoutingSettings {
  upstreams: Record<string, UpstreamSettings>;
  models: Record<string, ModelRoute>;
  /** Per client-facing model name, and `*` for every model without its own chain. */
  fallbacks: Record<string, string[]>;
}

export const EMPTY_ROUTING_SETTINGS: RoutingSettings = { upstreams: {}, models: {}, fallbacks: {} };

/** Marks settings this module validated, so a resolved config handed back in (the CLI → createGateway) is not parsed again. */
const VALIDATED = Symbol('turnguard.routing.validated');

export function isValidatedRoutingSettings(value: unknown): value is RoutingSettings {
  return typeof value === 'object' && value !== null && (value as { [VALIDATED]?: true })[VALIDATED] === true;
}

function markValidated(settings: RoutingSettings): RoutingSettings {
  Object.defineProperty(settings, VALIDATED, { value: true, enumerable: false });
  return settings;
}

/** The simple form's upstreams are named after their protocol (`upstreams.chat` …); a named upstream may not take those names. */
export const IMPLICIT_UPSTREAM_NAMES: readonly string[] = PROTOCOLS;

const NAME = /^[A-Za-z0-9][A-Za-z0-9._:/@-]{0,127}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

/** An object that rejects unknown keys with a message listing the valid ones. */
function strictObject<Shape extends z.ZodRawShape>(shape: Shape) {
  const valid = Object.keys(shape).join(', ');
  return z.strictObject(shape, {
    error: (issue) =>
      issue.code === 'unrecognized_keys' ? `unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((key) => `"${key}"`).join(', ')}; valid keys: ${valid}` : undefined,
  });
}

const keySourceSchema = z.union(
  [
    z.literal('client'),
    strictObject({ env: z.string().regex(ENV_NAME) }),
    strictObject({ clientOrEnv: z.string().regex(ENV_NAME) }),
  ],
  { error: () => 'must be "client", {"env": "VARIABLE"} or {"clientOrEnv": "VARIABLE"}; a literal key is never accepted here (R8.5)' },
);

const baseUrlSchema = z.string().check((context) => {
  let url: URL;
  try {
    url = new URL(context.value);
  } catch {
    context.issues.push({ code: 'custom', input: context.value, message: 'must be an http(s) URL' });
    return;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    context.issues.push({ code: 'custom', input: context.value, message: 'must use http or https' });
  } else if (url.username !== '' || url.password !== '') {
    context.issues.push({ code: 'custom', input: context.value, message: 'must not carry credentials; use apiKey {"env": …}' });
  }
});

const PREFILL_DIALECTS = ['messages', 'trailing-message', 'prefix-flag', 'continue-final-message'] as const satisfies readonly PrefillDialect[];

const upstreamSchema = strictObject({
  protocol: z.enum(PROTOCOLS, { error: () => `must be one of ${PROTOCOLS.join(', ')}` }),
  baseUrl: baseUrlSchema,
  apiKey: keySourceSchema.optional(),
  prefill: z.union([z.enum(PREFILL_DIALECTS), z.literal(false)], { error: () => `must be false or one of ${PREFILL_DIALECTS.join(', ')}` }).optional(),
});

const modelRouteSchema = strictObject({
  upstream: z.string().regex(NAME, 'must name an upstream'),
  model: z.string().min(1).max(256).optional(),
});

const modelNameSchema = z.string().min(1, 'must not be empty').max(256).regex(/^[^\s,]+$/, 'must not contain spaces or commas');

export const routingSchema = strictObject({
  upstreams: z.record(z.string().regex(NAME, 'upstream names are letters, digits and . _ : / @ -'), upstreamSchema).optional(),
  models: z.record(modelNameSchema, modelRouteSchema).optional(),
  fallbacks: z.record(z.string().min(1), z.array(modelNameSchema).max(16, 'at most 16 fallbacks')).optional(),
});

type RoutingInput = z.infer<typeof routingSchema>;
type UpstreamInput = z.infer<typeof upstreamSchema>;

/** The SDKs' own variable per protocol: the default key source of an upstream that names none. */
export const DEFAULT_KEY_ENV: Record<Protocol, string> = {
  chat: 'OPENAI_API_KEY',
  responses: 'OPENAI_API_KEY',
  messages: 'ANTHROPIC_API_KEY',
};

function toKeySource(input: UpstreamInput): KeySource {
  const given = input.apiKey;
  if (given === undefined) return { from: 'client-or-env', name: DEFAULT_KEY_ENV[input.protocol] };
  if (given === 'client') return { from: 'client' };
  return 'env' in given ? { from: 'env', name: given.env } : { from: 'client-or-env', name: given.clientOrEnv };
}

/** A config problem as the rest of the gateway's config reports it (`GATEWAY_INVALID_CONFIG`), every problem listed. */
function rejectRouting(option: string, problems: readonly string[]): never {
  throw new TurnError({
    kind: 'invalid_request',
    code: 'GATEWAY_INVALID_CONFIG',
    retryable: false,
    message: problems.length === 1 ? problems[0]! : `The routing config has ${problems.length} problems:\n${problems.join('\n')}`,
    details: { option, problems },
  });
}

function formatPath(path: readonly PropertyKey[]): string {
  return ['routing', ...path.map(String)].join('.');
}

/** Cross-references zod cannot see: names that must exist, names that are reserved. */
function checkReferences(input: RoutingInput): string[] {
  const problems: string[] = [];
  const upstreams = input.upstreams ?? {};
  const known = Object.keys(upstreams);
  for (const name of known) {
    if (IMPLICIT_UPSTREAM_NAMES.includes(name)) {
      problems.push(`routing.upstreams.${name}: the names ${IMPLICIT_UPSTREAM_NAMES.join(', ')} are the simple form's upstreams; set them with upstreams.${name} or pick another name`);
    }
  }
  const routable = [...known, ...IMPLICIT_UPSTREAM_NAMES];
  for (const [model, route] of Object.entries(input.models ?? {})) {
    if (model === '*') problems.push('routing.models.*: "*" is only a fallbacks key');
    if (!routable.includes(route.upstream)) {
      problems.push(`routing.models.${model}.upstream: no upstream named "${route.upstream}"; valid: ${routable.join(', ')}`);
    }
  }
  for (const [model, chain] of Object.entries(input.fallbacks ?? {})) {
    if (chain.includes('*')) problems.push(`routing.fallbacks.${model}: "*" cannot be a fallback`);
    if (chain.includes(model)) problems.push(`routing.fallbacks.${model}: a model cannot be its own fallback`);
  }
  return problems;
}

/**
 * Validates the `routing` section (R11.1). All problems are reported at
 * once, one line each, every line starting with the key's full path.
 */
export function parseRoutingSettings(value: unknown): RoutingSettings {
  if (value === undefined) return EMPTY_ROUTING_SETTINGS;
  if (isValidatedRoutingSettings(value)) return value;
  const parsed = routingSchema.safeParse(value);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${formatPath(issue.path)}: ${issue.message}`);
    rejectRouting(formatPath(parsed.error.issues[0]?.path ?? []), problems);
  }
  const references = checkReferences(parsed.data);
  if (references.length > 0) rejectRouting(references[0]!.split(':')[0]!, references);
  const upstreams: Record<string, UpstreamSettings> = {};
  for (const [name, upstream] of Object.entries(parsed.data.upstreams ?? {})) {
    upstreams[name] = {
      protocol: upstream.protocol,
      baseUrl: upstream.baseUrl.replace(/\/+$/, ''),
      keySource: toKeySource(upstream),
      ...(upstream.prefill === undefined ? {} : { prefill: upstream.prefill }),
    };
  }
  const models: Record<string, ModelRoute> = {};
  for (const [name, route] of Object.entries(parsed.data.models ?? {})) models[name] = { upstream: route.upstream, model: route.model ?? name };
  return markValidated({ upstreams, models, fallbacks: { ...(parsed.data.fallbacks ?? {}) } });
}
