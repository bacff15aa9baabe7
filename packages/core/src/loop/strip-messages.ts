import type { ImagePart } from '../types/image-part.js';
import type { Message } from '../types/message.js';
import type { TextPart } from '../types/text-part.js';
import type { ToolResultPart } from '../types/tool-result-part.js';
import { STRIPPED_IMAGE_TEXT } from './loop-messages.js';

/**
 * R3.9: thinking signatures are bound to the model that wrote them; replaying
 * a signed (or redacted / encrypted) block to a different model is rejected
 * with 400. Such reasoning parts are
 * removed; plain reasoning text (Chat `reasoning_content`) is not bound and
 * stays. An assistant message left empty is dropped later by normalisation.
 */
export function stripModelBoundReasoning(messages: readonly Message[]): Message[] {
  return messages.map((message) => {
    if (message.role !== 'assistant') return message;
    const content = message.content.filter(
      (part) => part.type !== 'reasoning' || (part.signature === undefined && part.encrypted === undefined && part.redacted !== true),
    );
    return content.length === message.content.length ? message : { ...message, content };
  });
}

/** R3.6: media too large → every image (in user content and tool results) becomes a short note. */
export function stripImages(messages: readonly Message[]): Message[] {
  return messages.map((message) => {
    switch (message.role) {
      case 'user': {
        if (!message.content.some((part) => part.type === 'image')) return message;
        return { ...message, content: message.content.map(replaceImage) };
      }
      case 'tool': {
        if (!message.content.some(hasImageOutput)) return message;
        return { ...message, content: message.content.map(stripToolResultImages) };
      }
      case 'system':
      case 'assistant':
        return message;
      default: {
        const _exhaustive: never = message;
        return _exhaustive;
      }
    }
  });
}

function replaceImage(part: TextPart | ImagePart): TextPart {
  return part.type === 'image' ? { type: 'text', text: STRIPPED_IMAGE_TEXT } : part;
}

function hasImageOutput(part: ToolResultPart): boolean {
  return typeof part.output !== 'string' && part.output.some((outputPart) => outputPart.type === 'image');
}

function stripToolResultImages(part: ToolResultPart): ToolResultPart {
  if (!hasImageOutput(part) || typeof part.output === 'string') return part;
  return { ...part, output: part.output.map(replaceImage) };
}
