import { TurnError } from '../errors/turn-error.js';
import { executeTool, type ToolErrorReport } from '../tools/execute-tool.js';
import { formatToolError } from '../tools/format-tool-error.js';
import type { ToolHandler } from '../tools/tool-handler.js';
import type { ToolCallPart } from '../types/tool-call-part.js';
import type { ToolResultPart } from '../types/tool-result-part.js';
import { createSyntheticToolResult, INTERRUPTED_TOOL_RESULT } from './loop-messages.js';

export interface RunToolCallsOptions {
  toolCalls: readonly ToolCallPart[];
  handlers: Readonly<Record<string, ToolHandler>>;
  signal: AbortSignal;
  /** R3.13: the response stopped for the output limit. */
  responseTruncated: boolean;
  onToolError: ((report: ToolErrorReport) => void) | undefined;
}

/**
 * Runs the calls one after another through the tool layer, yielding each
 * result as it is ready. A throwing tool is a result, never a crash (R3.12).
 * On abort the running call and every call not yet run get an interrupted
 * result, so each tool use still has its tool result (R3.7, R3.10); the
 * return value says whether that happened. A tool the host moved to the
 * background returns like any other tool: it is a normal tool call.
 */
export async function* runToolCalls(options: RunToolCallsOptions): AsyncGenerator<ToolResultPart, { aborted: boolean }> {
  const { toolCalls, signal } = options;
  for (let index = 0; index < toolCalls.length; index += 1) {
    const toolCall = toolCalls[index]!;
    let result: ToolResultPart;
    try {
      result = await executeTool({
        toolCall,
        tools: options.handlers,
        signal,
        responseTruncated: options.responseTruncated,
        onToolError: options.onToolError,
      });
    } catch (thrown) {
      // executeTool rejects only for an abort; anything else still gets a paired error result, never a crash (R3.12).
      if (!(TurnError.isInstance(thrown) && thrown.kind === 'aborted') && !signal.aborted) {
        yield createSyntheticToolResult(toolCall, formatToolError(thrown));
        continue;
      }
      for (const remaining of toolCalls.slice(index)) yield createSyntheticToolResult(remaining, INTERRUPTED_TOOL_RESULT);
      return { aborted: true };
    }
    yield result;
  }
  return { aborted: signal.aborted };
}
