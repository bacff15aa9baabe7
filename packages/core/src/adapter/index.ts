export { PROTOCOLS } from './protocol-adapter.js';
export type { ProtocolAdapter, Protocol, UpstreamTarget } from './protocol-adapter.js';
