export type { ToolHandler, ToolOutput, ToolContext } from './tool-handler.js';
export { TelemetrySafeError } from './telemetry-safe-error.js';
export { classifyToolError } from './classify-tool-error.js';
export { formatToolError } from './format-tool-error.js';
export { recoverTruncatedJson, type RecoverTruncatedJsonResult } from './recover-truncated-json.js';
export {
  parseToolInput,
  OUTPUT_TRUNCATED_HINT,
  TRUNCATED_ARGUMENTS_WARNING,
  type ParsedToolInput,
  type ParseToolInputOptions,
} from './parse-tool-input.js';
export {
  executeTool,
  type ExecuteToolOptions,
  type ToolErrorReport,
  type ToolErrorReason,
} from './execute-tool.js';
