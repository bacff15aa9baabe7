import type { OtelCounter, OtelHistogram, OtelMeter } from './otel-api.js';
import type { GenAiConventions } from './turn-attributes.js';

/** The conventions' advised buckets: seconds for durations, tokens for usage. */
const SECONDS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];
const TOKENS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864];

/** The metric instruments one meter gets, made once per meter and conventions. */
export interface TurnInstruments {
  conventions: GenAiConventions;
  duration: OtelHistogram;
  timeToFirstChunk: OtelHistogram;
  /** v1.41: one histogram, split by `gen_ai.token.type`. */
  tokenUsage?: OtelHistogram;
  /** Newest conventions: a counter per token kind, and per-request histograms of input and output. */
  usageCounters?: Record<'input' | 'output' | 'cacheRead' | 'cacheWrite' | 'reasoning', OtelCounter>;
  operationTokens?: Record<'input' | 'output', OtelHistogram>;
  physicalRequests: OtelCounter;
  recoveries: OtelCounter;
  fallbacks: OtelCounter;
  continuations: OtelCounter;
}

const made = new WeakMap<OtelMeter, Map<GenAiConventions, TurnInstruments>>();

export function instrumentsFor(meter: OtelMeter, conventions: GenAiConventions): TurnInstruments {
  let byConventions = made.get(meter);
  if (byConventions === undefined) made.set(meter, (byConventions = new Map()));
  let instruments = byConventions.get(conventions);
  if (instruments === undefined) byConventions.set(conventions, (instruments = createInstruments(meter, conventions)));
  return instruments;
}

function createInstruments(meter: OtelMeter, conventions: GenAiConventions): TurnInstruments {
  const seconds = (name: string, description: string): OtelHistogram =>
    meter.createHistogram(name, { description, unit: 's', advice: { explicitBucketBoundaries: SECONDS } });
  const tokens = (name: string, description: string): OtelHistogram =>
    meter.createHistogram(name, { description, unit: '{token}', advice: { explicitBucketBoundaries: TOKENS } });
  const counter = (name: string, description: string, unit: string): OtelCounter => meter.createCounter(name, { description, unit });
  const own = {
    physicalRequests: counter('turnguard.client.physical_requests', 'Physical upstream requests of logical turns (R6.1).', '{request}'),
    recoveries: counter('turnguard.client.recoveries', 'Recovery requests after a cut thinking stream (R4).', '{recovery}'),
    fallbacks: counter('turnguard.client.fallbacks', 'Moves of a turn to another entry of its fail-over chain (R11).', '{fallback}'),
    continuations: counter('turnguard.client.continuations', 'Mid-answer continuation requests (R11.6).', '{continuation}'),
  };
  if (conventions === 'v1.41') {
    return {
      conventions,
      duration: seconds('gen_ai.client.operation.duration', 'GenAI operation duration.'),
      timeToFirstChunk: seconds('gen_ai.client.operation.time_to_first_chunk', 'Time to receive the first chunk.'),
      tokenUsage: tokens('gen_ai.client.token.usage', 'Number of input and output tokens used.'),
      ...own,
    };
  }
  const usage = (kind: string, description: string): OtelCounter => counter(`gen_ai.client.inference.usage.${kind}`, description, '{token}');
  return {
    conventions,
    duration: seconds('gen_ai.client.inference.duration', 'GenAI client inference operation duration.'),
    timeToFirstChunk: seconds('gen_ai.client.inference.time_to_first_chunk', 'Time to receive the first chunk.'),
    usageCounters: {
      input: usage('input_tokens', 'Input tokens used, including cached tokens.'),
      output: usage('output_tokens', 'Output tokens used, including reasoning tokens.'),
      cacheRead: usage('cache_read.input_tokens', 'Input tokens served from a provider-managed cache.'),
      cacheWrite: usage('cache_write.input_tokens', 'Input tokens written to a provider-managed cache.'),
      reasoning: usage('reasoning.output_tokens', 'Output tokens used for reasoning.'),
    },
    operationTokens: {
      input: tokens('gen_ai.client.inference.operation.input_tokens', 'Input tokens per inference operation.'),
      output: tokens('gen_ai.client.inference.operation.output_tokens', 'Output tokens per inference operation.'),
    },
    ...own,
  };
}
