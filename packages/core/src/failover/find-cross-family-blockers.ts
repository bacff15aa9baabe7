import type { Protocol } from '../adapter/protocol-adapter.js';

/**
 * What in a client's native request cannot be answered faithfully by an
 * upstream of another protocol family (decision 0403): state the provider
 * holds, tools the provider runs, outputs the other family cannot produce.
 * Such a target is skipped rather than sent an approximation (R11.1). The
 * result names features only (`tool:web_search`), never values (R4.10).
 */
export function findCrossFamilyBlockers(clientProtocol: Protocol, targetProtocol: Protocol, body: unknown): string[] {
  if (clientProtocol === targetProtocol || !isRecord(body)) return [];
  const blockers = new Set<string>();
  for (const tool of Array.isArray(body.tools) ? body.tools : []) {
    const type = providerToolType(clientProtocol, tool);
    if (type !== undefined) blockers.add(`tool:${type}`);
  }
  if (clientProtocol === 'responses') readResponsesBlockers(body, targetProtocol, blockers);
  if (clientProtocol === 'chat') readChatBlockers(body, targetProtocol, blockers);
  if (clientProtocol === 'messages') readMessagesBlockers(body, blockers);
  return [...blockers];
}

/** Function tools translate; Messages' plain tools have no type (or `custom`). Any other type runs at the provider: its type. */
function providerToolType(clientProtocol: Protocol, tool: unknown): string | undefined {
  const type = isRecord(tool) && typeof tool.type === 'string' ? tool.type : undefined;
  return type !== undefined && type !== 'function' && !(clientProtocol === 'messages' && type === 'custom') ? type : undefined;
}

/**
 * The request without the tools its provider runs (web search, code
 * execution, MCP…): for a request that calls no tool at all — a
 * continuation, tools disabled (R11.6) — they change nothing, and another
 * family cannot declare them. Function tools stay: the history may hold
 * their calls.
 */
export function withoutProviderTools(clientProtocol: Protocol, body: object): object {
  const tools = (body as { tools?: unknown }).tools;
  if (!Array.isArray(tools)) return body;
  const kept = tools.filter((tool) => providerToolType(clientProtocol, tool) === undefined);
  return kept.length === tools.length ? body : { ...body, tools: kept };
}

function readResponsesBlockers(body: Record<string, unknown>, target: Protocol, blockers: Set<string>): void {
  // Conversation state lives at the provider, for one organisation.
  if (isPresent(body.previous_response_id)) blockers.add('previous_response_id');
  if (isPresent(body.conversation)) blockers.add('conversation');
  if (body.background === true) blockers.add('background');
  if (Array.isArray(body.input) && body.input.some((item) => isRecord(item) && item.type === 'item_reference')) blockers.add('item_reference');
  const format = isRecord(body.text) && isRecord(body.text.format) ? body.text.format.type : undefined;
  if (format === 'json_schema' && target === 'messages') blockers.add('structured-output');
}

function readChatBlockers(body: Record<string, unknown>, target: Protocol, blockers: Set<string>): void {
  if (typeof body.n === 'number' && body.n > 1) blockers.add('n');
  if (body.logprobs === true || isPresent(body.top_logprobs)) blockers.add('logprobs');
  if (isPresent(body.audio) || (Array.isArray(body.modalities) && body.modalities.includes('audio'))) blockers.add('audio');
  if (isPresent(body.web_search_options)) blockers.add('web_search_options');
  const format = isRecord(body.response_format) ? body.response_format.type : undefined;
  if (format === 'json_schema' && target === 'messages') blockers.add('structured-output');
}

function readMessagesBlockers(body: Record<string, unknown>, blockers: Set<string>): void {
  if (isPresent(body.mcp_servers)) blockers.add('mcp_servers');
  if (isPresent(body.container)) blockers.add('container');
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isPresent(value: unknown): boolean {
  return value !== undefined && value !== null && !(Array.isArray(value) && value.length === 0);
}
