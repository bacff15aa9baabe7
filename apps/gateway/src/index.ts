export { createGateway, type Gateway, type GatewayOptions } from './create-gateway.js';
export {
  resolveGatewayConfig,
  DEFAULT_GATEWAY_CONFIG,
  type GatewayConfig,
  type GatewayConfigInput,
  type GatewayRetrySettings,
  type UpstreamUrls,
} from './config/gateway-config.js';
export { loadGatewayConfig, readEnvironmentLayer, type LoadConfigSources } from './config/load-config.js';
export { GatewayMetrics, type CircuitState, type ContinuationResult, type GatewayMetricsOptions } from './metrics/gateway-metrics.js';
export { REQUEST_ID_HEADER } from './logging/request-id.js';
export { CREDENTIAL_ENV } from './forward/resolve-upstream-target.js';
export { runGatewayCli, GATEWAY_CLI_USAGE, type GatewayCliIo, type GatewayCliResult } from './cli/run-gateway-cli.js';
