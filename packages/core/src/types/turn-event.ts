import type { Protocol } from '../adapter/protocol-adapter.js';
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
  /**
   * R11.2: the turn moves to the next target of its chain. Before any output
   * the host sees the fallback's answer from its start; after relayed
   * thinking its blocks follow (an encoder closes what is open, R8.7). A
   * lifecycle notice: it has no wire form of its own.
   */
  | { type: 'fallback'; from: ChainHop; to: ChainHop; reason: string; errorCode?: string }
  /**
   * R11.6: one continuation request goes out after an answer was cut, stalled
   * or broken mid-text; its text goes on in the block the host has open, so
   * the host reads one whole answer.
   */
  | { type: 'continuation-start'; continuationId: string; to: ChainHop; reason: 'cut' | 'stall' | 'malformed' }
  /**
   * R3.8: a message already emitted from an abandoned attempt is retracted.
   * From runTurn (only with `outputHeldUntilEnd`): `messageId` is the dropped
   * physical request's id; drop everything collected so far, the next
   * attempt's answer starts from scratch (decision 0430).
   */
  | { type: 'tombstone'; messageId: string }
  | { type: 'warning'; message: string };

export type TurnEventType = TurnEvent['type'];

/** One destination of a fail-over chain as events and records name it: content-free (R4.10). */
export interface ChainHop {
  /** The upstream's name (a gateway's configured upstream, or the host's own name for it). */
  upstream: string;
  model: string;
  protocol: Protocol;
}

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
