export { aggregateUsage, type AggregatedUsage } from './aggregate-usage.js';
export { emptyUsage, isKnownCount, readKnownCount } from './empty-usage.js';
