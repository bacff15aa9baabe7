export {
  decodeSseStream,
  type DecodeSseStreamOptions,
  type LastRecordRule,
  type ObservedSseRecord,
  type SseRecord,
  type SseRecordDecoder,
  type SseRecordObserver,
} from './decode-sse-stream.js';
export { SseFramer, type SseFramerOptions, type SseRecordSink } from './sse-framer.js';
export { RecordTemplate, type LearnRecordTemplateOptions } from './record-template.js';
export { TemplateLearningBudget } from './template-learning-budget.js';
export type { ByteStream, ByteStreamReader, ByteStreamReadResult } from './byte-stream.js';
