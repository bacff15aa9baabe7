export * from './types/index.js';
export * from './errors/index.js';
export * from './adapter/index.js';
export * from './retry/index.js';
export * from './usage/index.js';
export * from './tools/index.js';
export * from './turn/index.js';
export * from './loop/index.js';
