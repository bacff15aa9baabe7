export type { ProtocolAdapter, Protocol, UpstreamTarget } from './protocol-adapter.js';
