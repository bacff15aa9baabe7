import { PROTOCOLS, type Protocol } from '@turnguard/core';
import { DEFAULT_KEY_ENV, type KeySource, type ModelRoute, type RoutingSettings, type UpstreamSettings } from './routing-schema.js';

/** Where each protocol's route forwards by default (the simple form: `--upstream-chat` …). */
export type DefaultUpstreamUrls = Record<Protocol, string>;

/**
 * The routing config a gateway runs with: the named upstreams plus the
 * simple form's one upstream per protocol, named after it, which serve every
 * model the config does not map (R11.1). Built once per listen, when the
 * embedded mock's URLs are known.
 */
export interface RoutingTable {
  upstreams: Readonly<Record<string, UpstreamSettings>>;
  models: Readonly<Record<string, ModelRoute>>;
  fallbacks: Readonly<Record<string, readonly string[]>>;
}

export function buildRoutingTable(settings: RoutingSettings, defaults: DefaultUpstreamUrls): RoutingTable {
  const implicit: Record<string, UpstreamSettings> = {};
  for (const protocol of PROTOCOLS) {
    const keySource: KeySource = { from: 'client-or-env', name: DEFAULT_KEY_ENV[protocol] };
    implicit[protocol] = { protocol, baseUrl: defaults[protocol].replace(/\/+$/, ''), keySource };
  }
  return { upstreams: { ...implicit, ...settings.upstreams }, models: settings.models, fallbacks: settings.fallbacks };
}
