import type { ToolChoice, ToolDefinition } from '@turnguard/core';
import { isJsonObject, pickUnknownFields, readString, type JsonObject } from './native-json.js';
import { buildProviderFields, readNativeExtras, readResponsesShape } from './responses-shape.js';

const FUNCTION_TOOL_KNOWN_KEYS = new Set(['type', 'name', 'description', 'parameters']);

/**
 * Neutral tool declarations → Responses `tools` (flat `{type:"function",name,…}`,
 * openai-node `FunctionTool`). Hosted and custom tools parsed from a native
 * request are sent back verbatim.
 */
export function prepareResponsesTools(tools: ToolDefinition[]): JsonObject[] {
  return tools.map((tool) => {
    const shape = readResponsesShape(tool.providerFields);
    if (shape.rawTool !== undefined) return shape.rawTool;
    // Responses treats a missing `strict` as strict mode, which rejects any schema
    // without `additionalProperties:false`; a tool that did not come from a
    // Responses request (no providerFields) therefore says `strict:false`.
    const strictDefault = tool.providerFields === undefined ? { strict: false } : {};
    return {
      type: 'function',
      name: tool.name,
      ...(tool.description !== undefined ? { description: tool.description } : {}),
      parameters: tool.inputSchema,
      ...strictDefault,
      ...readNativeExtras(tool.providerFields),
    };
  });
}

/** Neutral tool choice → Responses `tool_choice` (`ToolChoiceOptions` or `{type:"function",name}`). */
export function prepareResponsesToolChoice(toolChoice: ToolChoice): string | JsonObject {
  if (typeof toolChoice === 'string') return toolChoice;
  return { type: 'function', name: toolChoice.toolName };
}

/** Native `tools` → neutral; every field we do not model stays in providerFields. */
export function parseResponsesTools(nativeTools: unknown[]): ToolDefinition[] {
  return nativeTools.map((nativeTool, index) => {
    const tool = isJsonObject(nativeTool) ? nativeTool : {};
    const name = readString(tool.name);
    const isPlainFunction = tool.type === 'function' && name !== undefined && isJsonObject(tool.parameters);
    if (!isPlainFunction) {
      return {
        name: name ?? readString(tool.type) ?? `tool_${index}`,
        inputSchema: {},
        providerFields: buildProviderFields({}, { rawTool: tool }),
      };
    }
    const description = readString(tool.description);
    const extras = pickUnknownFields(tool, FUNCTION_TOOL_KNOWN_KEYS);
    // A non-string description (e.g. `null`) is not modelled: keep it verbatim.
    if (description === undefined && 'description' in tool) extras.description = tool.description;
    return {
      name,
      ...(description !== undefined ? { description } : {}),
      inputSchema: tool.parameters as Record<string, unknown>,
      providerFields: buildProviderFields(extras),
    };
  });
}

/** Native `tool_choice` → neutral, or `undefined` when it is a shape we keep verbatim. */
export function parseResponsesToolChoice(nativeChoice: unknown): ToolChoice | undefined {
  if (nativeChoice === 'auto' || nativeChoice === 'none' || nativeChoice === 'required') return nativeChoice;
  if (isJsonObject(nativeChoice) && nativeChoice.type === 'function' && typeof nativeChoice.name === 'string') {
    if (Object.keys(nativeChoice).length === 2) return { type: 'tool', toolName: nativeChoice.name };
  }
  return undefined;
}
