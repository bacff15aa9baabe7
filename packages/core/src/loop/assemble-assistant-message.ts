import type { AssistantMessage } from '../types/message.js';
import type { ReasoningPart } from '../types/reasoning-part.js';
import type { TextPart } from '../types/text-part.js';
import type { ToolCallPart } from '../types/tool-call-part.js';
import type { TurnEvent } from '../types/turn-event.js';

type AssembledPart = TextPart | ReasoningPart | ToolCallPart;

/**
 * Builds the assistant message of one model call from the events the host
 * saw, in the order blocks started. Tool calls that started but never ended
 * (an abort mid-arguments) are kept with the text received so far, so the
 * interrupt path can pair them (R3.10).
 */
export class AssistantMessageAssembler {
  #parts: AssembledPart[] = [];
  #textById = new Map<string, TextPart>();
  #reasoningById = new Map<string, ReasoningPart>();
  #toolCallById = new Map<string, ToolCallPart>();
  #endedToolCalls = new Set<string>();
  #contentEmitted = false;

  /** `keepReasoningIds`: Responses sends reasoning back by item id (R3.5); the block id is that id. */
  constructor(private readonly keepReasoningIds: boolean) {}

  add(event: TurnEvent): void {
    switch (event.type) {
      case 'text-start':
        this.#text(event.id);
        return;
      case 'text-delta':
        this.#text(event.id).text += event.delta;
        if (event.delta !== '') this.#contentEmitted = true;
        return;
      case 'reasoning-start': {
        const part = this.#reasoning(event.id);
        if (event.redacted === true) part.redacted = true;
        if (event.encrypted !== undefined) {
          part.encrypted = event.encrypted;
          this.#contentEmitted = true;
        }
        return;
      }
      case 'reasoning-delta':
        this.#reasoning(event.id).text += event.delta;
        if (event.delta !== '') this.#contentEmitted = true;
        return;
      case 'reasoning-end': {
        const part = this.#reasoning(event.id);
        if (event.signature !== undefined) part.signature = event.signature;
        if (event.encrypted !== undefined) part.encrypted = event.encrypted;
        return;
      }
      case 'tool-call-start':
        this.#toolCall(event.toolCallId, event.toolName);
        this.#contentEmitted = true;
        return;
      case 'tool-call-delta':
        this.#toolCall(event.toolCallId, '').input += event.delta;
        this.#contentEmitted = true;
        return;
      case 'tool-call-end': {
        const part = this.#toolCall(event.toolCallId, event.toolName);
        part.toolName = event.toolName;
        part.input = event.input;
        this.#endedToolCalls.add(event.toolCallId);
        this.#contentEmitted = true;
        return;
      }
      case 'retry':
        // runTurn retries only attempts whose output never reached the host (R1.2): start clean.
        this.#reset();
        return;
      case 'tombstone':
        // R3.8: runTurn dropped an attempt whose output a holding host collected (outputHeldUntilEnd): start clean.
        this.#reset();
        return;
      case 'recovery-start':
        // R4.4: segment 1's unsigned, cut thinking went into the checkpoint; the recovered answer stands alone.
        this.#dropReasoning();
        return;
      default:
        return;
    }
  }

  /** Some content of this call reached the host (a tombstone must retract it, R3.8). */
  get contentEmitted(): boolean {
    return this.#contentEmitted;
  }

  get toolCalls(): ToolCallPart[] {
    return this.#parts.filter((part): part is ToolCallPart => part.type === 'tool-call').map((part) => ({ ...part }));
  }

  hasUnfinishedToolCall(): boolean {
    return this.toolCalls.some((call) => !this.#endedToolCalls.has(call.toolCallId));
  }

  build(): AssistantMessage {
    return { role: 'assistant', content: this.#parts.map((part) => ({ ...part })) };
  }

  #text(id: string): TextPart {
    let part = this.#textById.get(id);
    if (part === undefined) {
      part = { type: 'text', text: '' };
      this.#textById.set(id, part);
      this.#parts.push(part);
    }
    return part;
  }

  #reasoning(id: string): ReasoningPart {
    let part = this.#reasoningById.get(id);
    if (part === undefined) {
      part = { type: 'reasoning', text: '', ...(this.keepReasoningIds ? { id } : {}) };
      this.#reasoningById.set(id, part);
      this.#parts.push(part);
    }
    return part;
  }

  #toolCall(toolCallId: string, toolName: string): ToolCallPart {
    let part = this.#toolCallById.get(toolCallId);
    if (part === undefined) {
      part = { type: 'tool-call', toolCallId, toolName, input: '' };
      this.#toolCallById.set(toolCallId, part);
      this.#parts.push(part);
    }
    return part;
  }

  #dropReasoning(): void {
    this.#parts = this.#parts.filter((part) => part.type !== 'reasoning');
    this.#reasoningById.clear();
  }

  #reset(): void {
    this.#parts = [];
    this.#textById.clear();
    this.#reasoningById.clear();
    this.#toolCallById.clear();
    this.#endedToolCalls.clear();
    this.#contentEmitted = false;
  }
}

/**
 * R3.5: a turn with no text, no tool call and no reasoning is dropped. A
 * reasoning part counts when it has text or model-bound data (a redacted or
 * encrypted block carries its content there).
 */
export function isEmptyAssistantMessage(message: AssistantMessage): boolean {
  return !message.content.some((part) => {
    switch (part.type) {
      case 'text':
        return part.text !== '';
      case 'tool-call':
        return true;
      case 'reasoning':
        return part.text !== '' || part.encrypted !== undefined || part.redacted === true;
      default: {
        const _exhaustive: never = part;
        return _exhaustive;
      }
    }
  });
}
