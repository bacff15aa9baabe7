/**
 * Native fields a converter did not understand, kept verbatim so that
 * `buildRequest(parseRequest(x))` reproduces `x` (R7.1, lossless gateway).
 */
export type ProviderFields = Record<string, unknown>;
