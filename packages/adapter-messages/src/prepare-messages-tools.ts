import type { ToolChoice, ToolDefinition } from '@turnguard/core';
import {
  collectProviderFields,
  insertIndexedExtras,
  nativeFieldsOf,
  type IndexedExtra,
  type ShapeHint,
} from './messages-shape-hints.js';
import { isRecord, type NativeRecord } from './messages-types.js';

/** Neutral tools → native `tools` (custom tools: `{name, description, input_schema}`). */
export function prepareMessagesTools(
  tools: ToolDefinition[] | undefined,
  extraTools: IndexedExtra[] | undefined,
): NativeRecord[] | undefined {
  if (tools === undefined && (extraTools === undefined || extraTools.length === 0)) return undefined;
  const converted = (tools ?? []).map((tool) => {
    const native: NativeRecord = { ...nativeFieldsOf(tool.providerFields), name: tool.name };
    if (tool.description !== undefined) native['description'] = tool.description;
    native['input_schema'] = tool.inputSchema;
    return native;
  });
  return insertIndexedExtras(converted, extraTools);
}

/**
 * Neutral tool choice → native. `required` is Anthropic's `any`; `none` is
 * `{type:"none"}` (SDK ToolChoiceNone), which keeps the declarations (R4.5).
 * Extra native keys such as `disable_parallel_tool_use` are put back, except
 * on `none`, whose type has no other field.
 */
export function prepareMessagesToolChoice(
  toolChoice: ToolChoice | undefined,
  extras: NativeRecord | undefined,
): NativeRecord | undefined {
  if (toolChoice === undefined) return undefined;
  if (toolChoice === 'none') return { type: 'none' };
  const base =
    toolChoice === 'auto'
      ? { type: 'auto' }
      : toolChoice === 'required'
        ? { type: 'any' }
        : { type: 'tool', name: toolChoice.toolName };
  return { ...extras, ...base };
}

/** A custom tool has an `input_schema`; server tools (web_search, bash…) have a versioned `type` instead. */
function isCustomTool(tool: unknown): tool is NativeRecord & { name: string; input_schema: Record<string, unknown> } {
  return (
    isRecord(tool) &&
    typeof tool['name'] === 'string' &&
    isRecord(tool['input_schema']) &&
    (tool['type'] === undefined || tool['type'] === 'custom' || tool['type'] === null)
  );
}

/** Native `tools` → neutral definitions; server tools are kept as positioned extras (lossless). */
export function parseMessagesTools(tools: unknown): { tools: ToolDefinition[]; extraTools: IndexedExtra[] } {
  const definitions: ToolDefinition[] = [];
  const extraTools: IndexedExtra[] = [];
  if (!Array.isArray(tools)) return { tools: definitions, extraTools };
  tools.forEach((tool: unknown, index) => {
    if (!isCustomTool(tool)) {
      extraTools.push({ index, value: tool });
      return;
    }
    const definition: ToolDefinition = { name: tool.name, inputSchema: tool.input_schema };
    if (typeof tool['description'] === 'string') definition.description = tool['description'];
    const known = ['name', 'input_schema', ...(typeof tool['description'] === 'string' ? ['description'] : [])];
    const providerFields = collectProviderFields(tool, known);
    if (providerFields !== undefined) definition.providerFields = providerFields;
    definitions.push(definition);
  });
  return { tools: definitions, extraTools };
}

/** Native `tool_choice` → neutral, or undefined when its type is unknown (then it is kept verbatim). */
export function parseMessagesToolChoice(
  toolChoice: unknown,
): { toolChoice: ToolChoice; extras: ShapeHint['toolChoiceExtras'] } | undefined {
  if (!isRecord(toolChoice)) return undefined;
  const { type, name, ...rest } = toolChoice;
  const extras = Object.keys(rest).length > 0 ? rest : undefined;
  switch (type) {
    case 'auto':
      return name === undefined ? { toolChoice: 'auto', extras } : undefined;
    case 'any':
      return name === undefined ? { toolChoice: 'required', extras } : undefined;
    case 'none':
      return name === undefined && extras === undefined ? { toolChoice: 'none', extras } : undefined;
    case 'tool':
      return typeof name === 'string' ? { toolChoice: { type: 'tool', toolName: name }, extras } : undefined;
    default:
      return undefined;
  }
}
