import { TurnError } from '../errors/turn-error.js';
import type { ToolCallPart } from '../types/tool-call-part.js';
import type { ToolResultPart } from '../types/tool-result-part.js';
import { classifyToolError } from './classify-tool-error.js';
import { formatToolError } from './format-tool-error.js';
import { parseToolInput, TRUNCATED_ARGUMENTS_WARNING } from './parse-tool-input.js';
import type { ToolHandler, ToolOutput } from './tool-handler.js';

export type ToolErrorReason = 'unknown-tool' | 'invalid-input' | 'tool-threw' | 'invalid-output';

/** Content-free facts about a failed tool call, for telemetry (R3.12, R4.10). */
export interface ToolErrorReport {
  toolCallId: string;
  /** Only for a registered tool: an unknown name is model output and may hold anything. */
  toolName: string | undefined;
  reason: ToolErrorReason;
  /** See `classifyToolError`; fixed labels for the non-throw reasons. */
  classification: string;
  /** The arguments had been cut off and were auto-closed (R3.14). */
  inputRecovered: boolean;
}

export interface ExecuteToolOptions {
  toolCall: ToolCallPart;
  tools: Readonly<Record<string, ToolHandler>>;
  signal: AbortSignal;
  /** The response that produced the call stopped for the output-token limit (R3.13). */
  responseTruncated: boolean;
  onToolError?: (report: ToolErrorReport) => void;
}

/**
 * Runs one tool call and always yields its tool result, so the loop never
 * crashes on a tool (R3.12): an unknown tool, unparseable arguments (R3.13),
 * a throw or an invalid output all become `isError: true` results. Arguments
 * cut off mid-way are recovered when safe and the result then carries
 * `TRUNCATED_ARGUMENTS_WARNING` (R3.14).
 *
 * Abort is the one exception: if `signal` is aborted before the tool starts
 * or while it runs, this rejects with a `TurnError` of kind `aborted` at once
 * (without waiting for a tool that ignores the signal), so the agent loop can
 * write interrupted results and end with `aborted_tools` (R3.10).
 */
export async function executeTool(options: ExecuteToolOptions): Promise<ToolResultPart> {
  const { toolCall, tools, signal, responseTruncated } = options;
  throwIfAborted(signal, toolCall);

  // hasOwn: a model-chosen name like `toString` must not reach Object.prototype.
  const handler = Object.hasOwn(tools, toolCall.toolName) ? tools[toolCall.toolName] : undefined;
  if (typeof handler !== 'function') {
    report(options, { reason: 'unknown-tool', classification: 'unknown_tool', toolName: undefined, inputRecovered: false });
    return errorResult(toolCall, `Error: No such tool available: ${toolCall.toolName}`);
  }

  const input = parseToolInput(toolCall.input, { responseTruncated });
  if (!input.ok) {
    report(options, { reason: 'invalid-input', classification: 'invalid_tool_input', toolName: toolCall.toolName, inputRecovered: false });
    return errorResult(toolCall, input.message);
  }

  let result: ToolResultPart;
  try {
    const output = await runUntilAborted(() => handler(input.value, { signal, toolCallId: toolCall.toolCallId }), signal);
    if (isToolOutput(output)) {
      result = { type: 'tool-result', toolCallId: toolCall.toolCallId, toolName: toolCall.toolName, output };
    } else {
      report(options, { reason: 'invalid-output', classification: 'invalid_tool_output', toolName: toolCall.toolName, inputRecovered: input.recovered });
      result = errorResult(toolCall, 'Error: The tool returned an output that is neither text nor a list of text and image parts.');
    }
  } catch (error) {
    throwIfAborted(signal, toolCall);
    report(options, { reason: 'tool-threw', classification: classifyToolError(error), toolName: toolCall.toolName, inputRecovered: input.recovered });
    result = errorResult(toolCall, formatToolError(error));
  }
  return input.recovered ? withTruncationWarning(result) : result;
}

function throwIfAborted(signal: AbortSignal, toolCall: ToolCallPart): void {
  if (!signal.aborted) return;
  throw new TurnError({
    kind: 'aborted',
    message: 'Tool execution was aborted',
    details: { phase: 'tools', toolCallId: toolCall.toolCallId },
    cause: signal.reason,
  });
}

/** Settles with the handler, or rejects as soon as the signal aborts. */
function runUntilAborted<T>(run: () => Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    let pending: Promise<T>;
    try {
      pending = Promise.resolve(run());
    } catch (error) {
      // A handler that throws synchronously instead of returning a rejected promise.
      pending = Promise.reject(error);
    }
    pending.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

function isToolOutput(value: unknown): value is ToolOutput {
  if (typeof value === 'string') return true;
  if (!Array.isArray(value)) return false;
  return value.every((part: unknown) => {
    if (typeof part !== 'object' || part === null) return false;
    const { type } = part as { type?: unknown };
    if (type === 'text') return typeof (part as { text?: unknown }).text === 'string';
    if (type === 'image') return typeof (part as { source?: unknown }).source === 'object';
    return false;
  });
}

function errorResult(toolCall: ToolCallPart, message: string): ToolResultPart {
  return { type: 'tool-result', toolCallId: toolCall.toolCallId, toolName: toolCall.toolName, output: message, isError: true };
}

function withTruncationWarning(result: ToolResultPart): ToolResultPart {
  const output: ToolOutput =
    typeof result.output === 'string'
      ? `${result.output}\n\n${TRUNCATED_ARGUMENTS_WARNING}`
      : [...result.output, { type: 'text', text: TRUNCATED_ARGUMENTS_WARNING }];
  return { ...result, output };
}

function report(options: ExecuteToolOptions, facts: Omit<ToolErrorReport, 'toolCallId'>): void {
  try {
    options.onToolError?.({ toolCallId: options.toolCall.toolCallId, ...facts });
  } catch {
    // Telemetry must never break tool execution (R3.12: the loop never crashes).
  }
}
