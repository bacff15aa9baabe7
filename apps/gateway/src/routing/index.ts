export {
  parseRoutingSettings,
  routingSchema,
  EMPTY_ROUTING_SETTINGS,
  IMPLICIT_UPSTREAM_NAMES,
  DEFAULT_KEY_ENV,
  type KeySource,
  type UpstreamSettings,
  type ModelRoute,
  type RoutingSettings,
} from './routing-schema.js';
export { buildRoutingTable, type RoutingTable, type DefaultUpstreamUrls } from './routing-table.js';
export { resolveRoute, type RouteAttempt } from './resolve-route.js';
export { parseFallbacksHeader, FALLBACKS_HEADER, GATEWAY_OWN_REQUEST_HEADERS, MAX_HEADER_FALLBACKS } from './parse-fallbacks-header.js';
export { describeKeySource, resolveAttemptCredentials, type AttemptCredentials } from './key-source.js';
export { findCrossFamilyBlockers } from '@turnguard/core';
