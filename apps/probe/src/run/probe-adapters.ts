import { chatAdapter } from '@turnguard/adapter-chat';
import { messagesAdapter } from '@turnguard/adapter-messages';
import { responsesAdapter } from '@turnguard/adapter-responses';
import type { Prompt, Protocol, ProtocolAdapter, ToolDefinition, TurnSettings, UpstreamTarget } from '@turnguard/core';
import type { ProbeContent } from '../probe-types.js';

// Each adapter is typed with its own native request; the probe only passes
// what the adapter itself built back to it, so the widening is safe.
const ADAPTERS: Record<Protocol, ProtocolAdapter<object>> = {
  chat: chatAdapter as unknown as ProtocolAdapter<object>,
  messages: messagesAdapter as unknown as ProtocolAdapter<object>,
  responses: responsesAdapter as unknown as ProtocolAdapter<object>,
};

export function getProbeAdapter(protocol: Protocol): ProtocolAdapter<object> {
  return ADAPTERS[protocol];
}

export const MOCK_MODEL = 'turnguard-probe-mock';

/** One harmless tool, so the tool-argument scenario has something to call. */
export const READ_FILE_TOOL: ToolDefinition = {
  name: 'read_file',
  description: 'Reads a file of the probe workspace.',
  inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
};

export function buildProbePrompt(content: ProbeContent): Prompt {
  return {
    messages: [
      { role: 'system', content: [{ type: 'text', text: 'You are a careful assistant.' }] },
      { role: 'user', content: [{ type: 'text', text: content.prompt }] },
    ],
  };
}

export function buildProbeSettings(model: string, overrides: Partial<TurnSettings> = {}): TurnSettings {
  return { model, stream: true, maxOutputTokens: 16384, ...overrides };
}

/**
 * The mock serves every route under `…/v1`; the Messages adapter appends
 * `/v1/messages` itself, like `new Anthropic({ baseURL })` (decision 0041).
 */
export function buildMockTarget(mockBaseUrl: string, protocol: Protocol): UpstreamTarget {
  const baseUrl = protocol === 'messages' ? mockBaseUrl.replace(/\/v1\/?$/, '') : mockBaseUrl;
  return { baseUrl, apiKey: 'probe-mock-key' };
}
