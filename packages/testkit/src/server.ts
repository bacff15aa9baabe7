/**
 * The testkit without msw: scenario builders, the wire builders and the
 * loopback `node:http` upstream (`@turnguard/testkit/server`). A program that
 * imports only this entry never loads msw, so the gateway's and the probe's
 * embedded mock upstream need no msw at run time (R10.3).
 */
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
export { fault, type Fault, type FaultContext, type FaultRule } from './faults/fault-spec.js';
export { renderFault, type FaultPlan } from './faults/render-fault.js';
export { startFaultUpstream, type FaultUpstream, type FaultUpstreamOptions, type FaultRequest, type ModelScript } from './faults/fault-upstream.js';
