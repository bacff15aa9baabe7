import { RecordTemplate } from '@turnguard/core';
import { isRecord } from './chat-wire-hints.js';

export type ChatDeltaKind = 'text' | 'reasoning';

/** A learned text/reasoning delta chunk shape and the block its value goes to. */
export interface ChatDeltaTemplate {
  template: RecordTemplate;
  kind: ChatDeltaKind;
}

/**
 * The template of a chunk whose ONLY effect is one non-empty text or
 * reasoning delta of choice 0 (no usage, finish reason, refusal, tool call or
 * error), or `undefined`. Everything but the value is constant text in the
 * template, so a matching chunk has exactly this effect with its own value
 * (decision 0320). `payload` is `data` parsed.
 */
export function learnChatDeltaTemplate(data: string, payload: Record<string, unknown>): ChatDeltaTemplate | undefined {
  if (isRecord(payload.usage) || Boolean(payload.error) || payload.object === 'error') return undefined;
  const choice = findFirstChoice(payload.choices);
  if (choice === undefined || !isRecord(choice.delta)) return undefined;
  if (typeof choice.finish_reason === 'string' && choice.finish_reason !== '') return undefined;
  const delta = choice.delta;
  // Typed content parts (R7.2) are decoded by the slow path, part by part.
  if (Array.isArray(delta.content) || Array.isArray(delta.tool_calls) || (typeof delta.refusal === 'string' && delta.refusal !== '')) return undefined;
  const hasContent = typeof delta.content === 'string' && delta.content !== '';
  const reasoning = readReasoningText(delta.reasoning_content ?? delta.reasoning);
  let valueKey: string;
  let kind: ChatDeltaKind;
  if (hasContent && reasoning === '') {
    valueKey = 'content';
    kind = 'text';
  } else if (!hasContent && typeof delta.reasoning_content === 'string' && delta.reasoning_content !== '') {
    valueKey = 'reasoning_content';
    kind = 'reasoning';
  } else if (!hasContent && delta.reasoning_content == null && typeof delta.reasoning === 'string' && delta.reasoning !== '') {
    valueKey = 'reasoning';
    kind = 'reasoning';
  } else {
    return undefined;
  }
  const template = RecordTemplate.learn(data, {
    valueKey,
    readValue: (parsed) => {
      const probed = isRecord(parsed) ? findFirstChoice(parsed.choices) : undefined;
      return probed !== undefined && isRecord(probed.delta) ? probed.delta[valueKey] : undefined;
    },
  });
  return template === undefined ? undefined : { template, kind };
}

/** The choice with `index` 0 (absent counts as 0), without a closure per chunk. */
export function findFirstChoice(choices: unknown): Record<string, unknown> | undefined {
  if (!Array.isArray(choices)) return undefined;
  for (const entry of choices) {
    if (isRecord(entry) && (entry.index ?? 0) === 0) return entry;
  }
  return undefined;
}

/**
 * `delta.reasoning_content ?? delta.reasoning` (vercel/ai openai-compatible),
 * as a string, `{text}` or `{content}` (codex-rs/codex-api/src/sse/chat.rs).
 */
export function readReasoningText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (isRecord(value)) {
    if (typeof value.text === 'string') return value.text;
    if (typeof value.content === 'string') return value.content;
  }
  return '';
}
