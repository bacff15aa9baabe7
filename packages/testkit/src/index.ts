export {
  scenario,
  ScenarioBuilder,
  resolveScenario,
  type ScenarioInput,
  type CutOptions,
  type ToolCallOptions,
  type HttpErrorOptions,
  type StreamErrorOptions,
} from './scenario/builder.js';
export type {
  Scenario,
  ScenarioStep,
  ScenarioEnding,
  ToolCallStep,
  UsageSpec,
  StreamErrorSpec,
  HttpErrorSpec,
  ChatDialect,
  ChatFinishReason,
  MessagesFinishReason,
  ResponsesFinishReason,
  FinishReasonOf,
} from './scenario/scenario.js';
export { makeFillerText } from './scenario/text-pieces.js';
export { planReply, isStreamingRequest, type ReplyPlan, type PlanInput } from './wire/reply-plan.js';
export { encodeRecord, type SseRecord } from './wire/sse.js';
export { createMockUpstream, type MockUpstream } from './upstream/mock-upstream.js';
export {
  ScenarioQueue,
  findRouteProtocol,
  ROUTE_PATHS,
  type RecordedRequest,
  type DefaultScenarioFactory,
  type UpstreamControls,
  type UpstreamOptions,
} from './upstream/upstream-state.js';
export { startLoopbackUpstream, type LoopbackUpstream } from './loopback/loopback-upstream.js';
export { releaseMockedResponseClones } from './upstream/release-clones.js';
export {
  readRecordedStreams,
  frameRecordedLines,
  findRecordedFixturesDir,
  type RecordedStream,
  type FrameOptions,
} from './fixtures/recorded-streams.js';
export { streamOfChunks, streamOfText, splitBytesAt, collectEvents } from './fixtures/byte-streams.js';
export { countJsonParses } from './fixtures/count-json-parses.js';
export { checkEncoderObserve, type ObservableEncoder, type EncoderObserveCheck } from './fixtures/encoder-observe-check.js';
export { runFullGcs } from './fixtures/garbage-collection.js';
