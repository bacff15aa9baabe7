/**
 * A Messages request whose history holds a `thinking` block without a
 * signature is rejected by Anthropic (thinking blocks must be sent back with
 * their signature, unmodified). The gateway itself produces such a block:
 * when a thinking stream is cut and recovered (R4), segment 1's thinking was
 * already relayed as it arrived (R8.2) and never got its `signature_delta`,
 * so a client that stores the message sends it back unsigned on the next
 * turn. Those blocks are dropped before forwarding (the recovered answer
 * stands on its own); an assistant message left empty is dropped with them.
 * Everything else, signed and redacted thinking included, passes untouched.
 */
export function dropUnsignedThinking(body: Record<string, unknown>): Record<string, unknown> {
  const messages = body['messages'];
  if (!Array.isArray(messages) || !messages.some(hasUnsignedThinking)) return body;
  const kept: unknown[] = [];
  for (const message of messages) {
    if (!hasUnsignedThinking(message)) {
      kept.push(message);
      continue;
    }
    const content = (message as { content: unknown[] }).content.filter((block) => !isUnsignedThinking(block));
    if (content.length > 0) kept.push({ ...(message as object), content });
  }
  return { ...body, messages: kept };
}

function hasUnsignedThinking(message: unknown): boolean {
  if (typeof message !== 'object' || message === null) return false;
  const { role, content } = message as { role?: unknown; content?: unknown };
  return role === 'assistant' && Array.isArray(content) && content.some(isUnsignedThinking);
}

function isUnsignedThinking(block: unknown): boolean {
  if (typeof block !== 'object' || block === null) return false;
  const { type, signature } = block as { type?: unknown; signature?: unknown };
  return type === 'thinking' && (typeof signature !== 'string' || signature === '');
}
