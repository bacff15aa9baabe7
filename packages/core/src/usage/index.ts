export { aggregateUsage, type AggregatedUsage } from './aggregate-usage.js';
export { emptyUsage, isKnownCount } from './empty-usage.js';
export { mergeUsageSnapshot } from './merge-usage-snapshot.js';
