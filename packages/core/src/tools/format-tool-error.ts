const MAX_MESSAGE_LENGTH = 10_000;
const KEPT_EDGE_LENGTH = 5_000;

/**
 * The text the MODEL sees in an `isError` tool result (R3.12), so it can
 * correct itself. Unlike telemetry, this may include the error's message.
 * Very long messages (a tool dumping a whole log into an error) keep their
 * head and tail: the start says what failed, the end usually says why.
 */
export function formatToolError(error: unknown): string {
  return limitLength(describeThrown(error));
}

function describeThrown(error: unknown): string {
  if (typeof error === 'string') return `Error: ${error}`;
  if (typeof error === 'object' && error !== null) {
    try {
      const { name, message } = error as { name?: unknown; message?: unknown };
      const label = typeof name === 'string' && name !== '' ? name : 'Error';
      if (typeof message === 'string' && message !== '') return `${label}: ${message}`;
      return `${label}: the tool failed without a message`;
    } catch {
      // A throwing getter on a thrown object: fall through to the generic text.
    }
  }
  if (typeof error === 'number' || typeof error === 'boolean' || typeof error === 'bigint') return `Error: ${String(error)}`;
  return 'Error: the tool failed without a message';
}

function limitLength(text: string): string {
  if (text.length <= MAX_MESSAGE_LENGTH) return text;
  const omitted = text.length - 2 * KEPT_EDGE_LENGTH;
  return `${text.slice(0, KEPT_EDGE_LENGTH)}\n\n… [${omitted} characters omitted] …\n\n${text.slice(-KEPT_EDGE_LENGTH)}`;
}
