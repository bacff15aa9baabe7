import type {
  ChatCompletionFunctionTool,
  ChatCompletionTool,
  ChatCompletionToolChoiceOption,
} from 'openai/resources/chat/completions';
import type { ToolChoice, ToolDefinition } from '@turnguard/core';
import { isRecord, joinProviderFields, omitKeys, splitProviderFields, type ChatToolHints } from './chat-wire-hints.js';

/** Neutral tool definitions → Chat `tools` (`{type:"function", function:{name, description, parameters}}`). */
export function prepareChatTools(tools: readonly ToolDefinition[]): ChatCompletionTool[] {
  return tools.map((tool) => {
    const { hints, nativeFields } = splitProviderFields<ChatToolHints>(tool.providerFields);
    if (hints.nativeTool !== undefined) return hints.nativeTool as ChatCompletionTool;
    const fn: Record<string, unknown> = { ...hints.functionExtras, name: tool.name };
    if (tool.description !== undefined) fn.description = tool.description;
    if (hints.parametersAbsent !== true) fn.parameters = tool.inputSchema;
    return { ...nativeFields, type: 'function', function: fn } as unknown as ChatCompletionFunctionTool;
  });
}

/** Neutral tool choice → Chat `tool_choice` (wire-formats §5). */
export function prepareChatToolChoice(toolChoice: ToolChoice): ChatCompletionToolChoiceOption {
  if (typeof toolChoice === 'string') return toolChoice;
  return { type: 'function', function: { name: toolChoice.toolName } };
}

/** Chat `tools` → neutral definitions; a tool the neutral shape cannot express is kept whole. */
export function parseChatTools(tools: readonly unknown[]): ToolDefinition[] {
  return tools.map((tool) => {
    const fn = isRecord(tool) && tool.type === 'function' && isRecord(tool.function) ? tool.function : undefined;
    const name = fn?.name;
    const description = fn?.description;
    const parameters = fn?.parameters;
    const modelled =
      fn !== undefined &&
      typeof name === 'string' &&
      (description === undefined || typeof description === 'string') &&
      (parameters === undefined || isRecord(parameters));
    if (!modelled || !isRecord(tool)) {
      // Custom tools (`type:"custom"`) and malformed entries go back exactly as received.
      const toolName = isRecord(tool) && isRecord(tool.custom) && typeof tool.custom.name === 'string' ? tool.custom.name : '';
      return { name: toolName, inputSchema: {}, providerFields: { ...joinProviderFields({}, { nativeTool: tool }) } };
    }
    const hints: ChatToolHints = {
      functionExtras: nonEmpty(omitKeys(fn, ['name', 'description', 'parameters'])),
      parametersAbsent: parameters === undefined ? true : undefined,
    };
    const definition: ToolDefinition = { name: name as string, inputSchema: (parameters as Record<string, unknown>) ?? {} };
    if (typeof description === 'string') definition.description = description;
    const providerFields = joinProviderFields(omitKeys(tool, ['type', 'function']), hints);
    return providerFields === undefined ? definition : { ...definition, providerFields };
  });
}

/** Chat `tool_choice` → neutral, or `undefined` when the neutral type cannot express it (then kept verbatim). */
export function parseChatToolChoice(toolChoice: unknown): ToolChoice | undefined {
  if (toolChoice === 'auto' || toolChoice === 'none' || toolChoice === 'required') return toolChoice;
  if (
    isRecord(toolChoice) &&
    toolChoice.type === 'function' &&
    Object.keys(toolChoice).length === 2 &&
    isRecord(toolChoice.function) &&
    Object.keys(toolChoice.function).length === 1 &&
    typeof toolChoice.function.name === 'string'
  ) {
    return { type: 'tool', toolName: toolChoice.function.name };
  }
  return undefined;
}

function nonEmpty(fields: Record<string, unknown>): Record<string, unknown> | undefined {
  return Object.keys(fields).length > 0 ? fields : undefined;
}
