export { PROTOCOLS } from './protocol-adapter.js';
export { encodeSseStream, type SseTextEncoder } from './encode-sse-stream.js';
export type { DecodeStreamOptions, ProtocolAdapter, Protocol, UpstreamTarget } from './protocol-adapter.js';
export { resolveEndpointUrl } from './resolve-endpoint-url.js';
