import type { ToolResultPart } from '../types/tool-result-part.js';

/** What a tool returns: text, or text and image parts (the neutral tool_result content). */
export type ToolOutput = ToolResultPart['output'];

export interface ToolContext {
  /** Aborts when the turn is interrupted (R3.10); long-running tools should stop. */
  signal: AbortSignal;
  toolCallId: string;
}

/**
 * A host tool. `input` is the parsed argument JSON, not validated against the
 * tool's schema: validating is the handler's job. Throwing is fine: the tool
 * layer turns any throw into an `isError` tool result (R3.12).
 */
export type ToolHandler = (input: unknown, context: ToolContext) => Promise<ToolOutput>;
