export { decodeSseStream, type DecodeSseStreamOptions, type LastRecordRule, type SseRecord, type SseRecordDecoder } from './decode-sse-stream.js';
export { SseFramer, type SseRecordSink } from './sse-framer.js';
export { RecordTemplate, type LearnRecordTemplateOptions } from './record-template.js';
export { TemplateLearningBudget } from './template-learning-budget.js';
export type { ByteStream, ByteStreamReader, ByteStreamReadResult } from './byte-stream.js';
export { heldShapes, holdShapes } from '../internal/held-shapes.js';
