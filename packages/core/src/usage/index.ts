export { aggregateUsage, type AggregatedUsage } from './aggregate-usage.js';
export { emptyUsage, isKnownCount } from './empty-usage.js';
