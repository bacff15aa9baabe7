import type { Protocol } from '@turnguard/core';
import type { ObservedRecord } from './judge-sse-records.js';

/**
 * The record that closes a protocol's stream for a client, once judged
 * `relay`: Chat's `[DONE]`, Messages' `message_stop`, Responses' terminal
 * event. The relay holds it until the turn has ended, so the turn's comment
 * goes just before it (R12.4); the decoder ends the body there, so the turn
 * ends right after.
 */
export function isProtocolEnd(protocol: Protocol, record: ObservedRecord): boolean {
  switch (protocol) {
    case 'chat':
      return record.data.length <= 16 && record.data.trim() === '[DONE]';
    case 'messages':
      return record.event === 'message_stop';
    case 'responses':
      for (const event of record.events) if (event.type === 'finish') return true;
      return false;
    default: {
      const _exhaustive: never = protocol;
      return _exhaustive;
    }
  }
}
