import type { Message } from '../types/message.js';
import type { Prompt } from '../types/prompt.js';
import type { ToolDefinition } from '../types/tool-definition.js';

/**
 * Conservative bytes→tokens ratio for the R4.7 capacity check. English runs
 * about 4 UTF-8 bytes per token and CJK about 3 bytes per character at one or
 * more characters per token, so dividing by 3 over-estimates English and is
 * close for CJK. This is a guard, not a tokenizer (R4.7 capacity check),
 * and it never feeds usage (R5.2 forbids estimating spend).
 */
export const ESTIMATED_BYTES_PER_TOKEN = 3;

// `data:` URLs are image/file payloads, left out like images (R4.7).
const DATA_URL = /data:[a-z0-9.+-]+\/[a-z0-9.+-]+;base64,[a-z0-9+/=]+/gi;

const encoder = new TextEncoder();

function countTextBytes(text: string): number {
  return encoder.encode(text.replace(DATA_URL, '')).byteLength;
}

function countMessageBytes(message: Message): number {
  let bytes = 0;
  for (const part of message.content) {
    switch (part.type) {
      case 'text':
        bytes += countTextBytes(part.text);
        break;
      case 'reasoning':
        bytes += countTextBytes(part.text);
        break;
      case 'tool-call':
        bytes += countTextBytes(part.toolName) + countTextBytes(part.input);
        break;
      case 'tool-result':
        if (typeof part.output === 'string') bytes += countTextBytes(part.output);
        else for (const inner of part.output) if (inner.type === 'text') bytes += countTextBytes(inner.text);
        break;
      case 'image':
        break;
      default: {
        const _exhaustive: never = part;
        return _exhaustive;
      }
    }
  }
  return bytes;
}

/** Text bytes of a prompt (images and `data:` URLs left out) plus tool declarations. */
export function countPromptTextBytes(prompt: Prompt, tools: readonly ToolDefinition[] = []): number {
  let bytes = 0;
  for (const message of prompt.messages) bytes += countMessageBytes(message);
  for (const tool of tools) bytes += countTextBytes(JSON.stringify(tool));
  return bytes;
}

export function estimateTokensFromBytes(bytes: number): number {
  return Math.ceil(bytes / ESTIMATED_BYTES_PER_TOKEN);
}
