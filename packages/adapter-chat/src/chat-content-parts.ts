import { isRecord } from './chat-wire-hints.js';

/** What one typed content part of a Chat delta or message carries. */
export interface ChatTypedPiece {
  kind: 'text' | 'reasoning';
  text: string;
}

/**
 * One element of an array `content` (delta or message) → its text or
 * reasoning, or `undefined` for a part of another type. Mistral's reasoning
 * (Magistral) models stream `content` as typed parts: `{type:"text", text}`
 * and `{type:"thinking", thinking:[{type:"text", text}]}` (docs.mistral.ai,
 * "Reasoning": the thinking chunk holds a list of text chunks); a plain string
 * `thinking` is accepted too.
 */
export function readTypedContentPart(part: unknown): ChatTypedPiece | undefined {
  if (!isRecord(part)) return undefined;
  if (part.type === 'text' && typeof part.text === 'string') return { kind: 'text', text: part.text };
  if (part.type === 'thinking') {
    const text = readThinkingText(part.thinking);
    return text === undefined ? undefined : { kind: 'reasoning', text };
  }
  return undefined;
}

/** A thinking part's `thinking`: a string, or the concatenated text of its `{type:"text"}` chunks. */
export function readThinkingText(thinking: unknown): string | undefined {
  if (typeof thinking === 'string') return thinking;
  if (!Array.isArray(thinking)) return undefined;
  let text = '';
  for (const chunk of thinking) {
    if (!isRecord(chunk) || chunk.type !== 'text' || typeof chunk.text !== 'string') return undefined;
    text += chunk.text;
  }
  return text;
}
