import type { StoredSample } from '../store/sample-fields.js';

export interface FallbackRoute {
  from: string;
  to: string;
  count: number;
}

/** Fallback attempts and continuations in the retained window (R11.7), from the samples' fail-over fields. */
export interface FailoverSummary {
  /** Physical requests sent to a fallback model. */
  fallbacks: number;
  /** Mid-answer continuation requests (R11.6). */
  continuations: number;
  /** Which model was replaced by which, most frequent first. */
  routes: FallbackRoute[];
}

export function summarizeFailover(samples: readonly StoredSample[]): FailoverSummary {
  const routes = new Map<string, FallbackRoute>();
  let fallbacks = 0;
  let continuations = 0;
  for (const sample of samples) {
    if (sample.continuation === true) continuations += 1;
    if (sample.fallbackFrom === undefined) continue;
    fallbacks += 1;
    const key = `${sample.fallbackFrom}\u0000${sample.model}`;
    let route = routes.get(key);
    if (route === undefined) routes.set(key, (route = { from: sample.fallbackFrom, to: sample.model, count: 0 }));
    route.count += 1;
  }
  return { fallbacks, continuations, routes: [...routes.values()].sort((a, b) => b.count - a.count || a.from.localeCompare(b.from)) };
}
