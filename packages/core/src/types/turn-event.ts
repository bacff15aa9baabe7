import type { TurnError } from '../errors/turn-error.js';
import type { RetryEvent } from '../retry/with-retry.js';
import type { FinishReason } from './finish-reason.js';
import type { ProviderFields } from './provider-fields.js';
import type { Usage } from './usage.js';

/**
 * Events streamed to the host, noun-verb named. Decoders produce the content
 * events; runTurn and the agent loop add retry/recovery/lifecycle events.
 * `id` ties start/delta/end of one block together within a segment.
 */
export type TurnEvent =
  | { type: 'response-metadata'; responseId?: string; model?: string; createdAt?: number }
  | { type: 'text-start'; id: string }
  | { type: 'text-delta'; id: string; delta: string }
  | { type: 'text-end'; id: string }
  | { type: 'reasoning-start'; id: string; redacted?: boolean; encrypted?: string }
  | { type: 'reasoning-delta'; id: string; delta: string }
  | { type: 'reasoning-end'; id: string; signature?: string; encrypted?: string }
  /**
   * `providerFields`: optional protocol facts a same-protocol encoder needs to
   * re-emit the call faithfully (e.g. Responses item `id` and whether it was a
   * `custom_tool_call`); other consumers ignore it.
   */
  | { type: 'tool-call-start'; toolCallId: string; toolName: string; providerFields?: ProviderFields }
  | { type: 'tool-call-delta'; toolCallId: string; delta: string }
  | { type: 'tool-call-end'; toolCallId: string; toolName: string; input: string }
  /** Usage of the current segment so far; a later `usage` event replaces an earlier one. */
  | { type: 'usage'; usage: Usage }
  /** Only emitted when the protocol's terminal frame was seen. */
  | { type: 'finish'; finishReason: FinishReason }
  /** An in-stream error frame or an undecodable chunk; never thrown by a decoder. */
  | { type: 'error'; error: TurnError }
  /**
   * R1.5: a retry is about to be waited for (the retry layer's own event,
   * passed through). `attempt` is a deprecated alias of `retryNumber`
   * (decision 0262).
   */
  | ({ type: 'retry' } & RetryEvent)
  /** R1.11: unattended mode is still sleeping. */
  | { type: 'heartbeat'; waitedMs: number; remainingMs: number }
  /** R4: a recovery segment starts after a cut thinking stream. */
  | { type: 'recovery-start'; recoveryId: string }
  /** R3.8: a message already emitted from an abandoned attempt is retracted. */
  | { type: 'tombstone'; messageId: string }
  | { type: 'warning'; message: string };

export type TurnEventType = TurnEvent['type'];

/** The last item of every decoded stream: whether the protocol's terminal frame arrived (R7.2). */
export interface StreamEnd {
  type: 'stream-end';
  terminalFrameSeen: boolean;
  /**
   * The stream carried a tool call of any kind, even one too incomplete to
   * emit `tool-call-start` (no id or name yet) or one the decoder does not
   * model (server tools): R4.1 allows no recovery after "even an unfinished"
   * tool call. Absent means none was seen.
   */
  toolCallSeen?: boolean;
}

export type DecodedStreamEvent = TurnEvent | StreamEnd;
