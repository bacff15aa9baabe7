import type { Protocol, ProtocolAdapter } from '../adapter/protocol-adapter.js';
import { findCrossFamilyBlockers } from '../failover/find-cross-family-blockers.js';
import type { Message } from '../types/message.js';
import type { Prompt } from '../types/prompt.js';
import type { ProviderFields } from '../types/provider-fields.js';
import type { TurnSettings } from '../types/turn-settings.js';
import type { ChainDestination } from './failover-options.js';

/** The native request for one destination, or why it cannot be asked faithfully (R11.1, decision 0403). */
export type TargetRequest = { native: object; droppedReasoning: boolean } | { blockedBy: string[] };

/** The one warning a turn shows when another family's thinking was left out of a fallback's request (R4.11, R3.9). */
export const CROSS_FAMILY_REASONING_WARNING = 'reasoning from the conversation was left out of a fallback request of another protocol family';

/**
 * Sampling fields every family names alike or one to one; anything else in
 * the host's native request (cache hints, `service_tier`, reasoning effort,
 * vendor extras) is the host protocol's own and is left out of another
 * family's request (decision 0403: never a guessed mapping).
 */
const STOP_FIELD: Record<Protocol, string | undefined> = { chat: 'stop', messages: 'stop_sequences', responses: undefined };

/**
 * R11.1: the request a destination gets. The same family: the host's own
 * request with the destination's model (lossless). Another family: through
 * the neutral form (R7.1) — parsed from the host's protocol, built in the
 * destination's — unless the request uses what the other family cannot
 * answer faithfully (`findCrossFamilyBlockers`): then the destination is
 * skipped, never sent an approximation.
 */
export function buildTargetRequest(hostAdapter: ProtocolAdapter<object>, request: object, destination: ChainDestination): TargetRequest {
  if (destination.protocol === hostAdapter.protocol) return { native: destination.adapter.withModel(request, destination.model), droppedReasoning: false };
  const blockedBy = findCrossFamilyBlockers(hostAdapter.protocol, destination.protocol, request);
  if (blockedBy.length > 0) return { blockedBy };
  const { prompt, settings } = hostAdapter.parseRequest(request);
  const translated = toForeignPrompt(prompt);
  const native = destination.adapter.buildRequest(translated.prompt, toForeignSettings(settings, hostAdapter.protocol, destination));
  return { native, droppedReasoning: translated.droppedReasoning };
}

/** Native fields of the host's protocol, at any level, go: the other family would read them as its own. */
function withoutProviderFields<T extends { providerFields?: ProviderFields }>(part: T): T {
  if (part.providerFields === undefined) return part;
  const { providerFields: _native, ...rest } = part;
  return rest as T;
}

/**
 * The conversation without the host protocol's native fields and without
 * thinking: signed thinking blocks and encrypted reasoning items are bound
 * to their provider and model (R3.9, decision 0403). An assistant message
 * left with nothing is dropped (R3.5's rule for an empty turn).
 */
function toForeignPrompt(prompt: Prompt): { prompt: Prompt; droppedReasoning: boolean } {
  let droppedReasoning = false;
  const messages: Message[] = [];
  for (const message of prompt.messages) {
    const bare = withoutProviderFields(message);
    switch (bare.role) {
      case 'assistant': {
        const content = bare.content.filter((part) => part.type !== 'reasoning').map(withoutProviderFields);
        if (content.length < bare.content.length) droppedReasoning = true;
        if (content.length > 0) messages.push({ ...bare, content });
        break;
      }
      case 'tool':
        messages.push({
          ...bare,
          content: bare.content.map((part) => {
            const result = withoutProviderFields(part);
            return typeof result.output === 'string' ? result : { ...result, output: result.output.map(withoutProviderFields) };
          }),
        });
        break;
      case 'system':
        messages.push({ ...bare, content: bare.content.map(withoutProviderFields) });
        break;
      case 'user':
        messages.push({ ...bare, content: bare.content.map(withoutProviderFields) });
        break;
      default: {
        const _exhaustive: never = bare;
        return _exhaustive;
      }
    }
  }
  return { prompt: { messages }, droppedReasoning };
}

function toForeignSettings(settings: TurnSettings, hostProtocol: Protocol, destination: ChainDestination): TurnSettings {
  const fields = settings.providerFields ?? {};
  const carried: ProviderFields = {};
  for (const name of ['temperature', 'top_p']) if (typeof fields[name] === 'number') carried[name] = fields[name];
  const stop = readStopSequences(fields[STOP_FIELD[hostProtocol] ?? '']);
  const stopField = STOP_FIELD[destination.protocol];
  if (stop !== undefined && stopField !== undefined) carried[stopField] = stop;
  return {
    model: destination.model,
    stream: true,
    ...(settings.maxOutputTokens === undefined ? {} : { maxOutputTokens: settings.maxOutputTokens }),
    ...(settings.tools === undefined ? {} : { tools: settings.tools.map(withoutProviderFields) }),
    ...(settings.toolChoice === undefined ? {} : { toolChoice: settings.toolChoice }),
    ...(Object.keys(carried).length === 0 ? {} : { providerFields: carried }),
  };
}

/** Chat's `stop` is a string or a list; Messages' `stop_sequences` a list. */
function readStopSequences(value: unknown): string[] | undefined {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value) && value.every((entry) => typeof entry === 'string') && value.length > 0) return value as string[];
  return undefined;
}
