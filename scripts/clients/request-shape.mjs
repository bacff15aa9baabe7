// What a request looked like, without its content: method, path, header names,
// body keys. Never header values, prompt text or keys (R4.10, R8.5).

/** Marker core puts in every recovery request (packages/core/src/turn/checkpoint-message.ts CHECKPOINT_BEGIN). */
export const CHECKPOINT_MARKER = '<<<CHECKPOINT BEGIN>>>';

export function parseJson(text) {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function toolNames(body) {
  if (!Array.isArray(body?.tools)) return undefined;
  return body.tools.map((tool) => tool?.name ?? tool?.function?.name ?? tool?.type ?? '?');
}

/** A content-free summary of one request. `stream` and tool names are schema, not content. */
export function describeRequest(req, bodyText) {
  const body = parseJson(bodyText);
  const isObject = body !== null && typeof body === 'object' && !Array.isArray(body);
  return {
    method: req.method,
    path: req.url,
    headers: Object.keys(req.headers).sort(),
    bodyKeys: isObject ? Object.keys(body).sort() : bodyText.length > 0 ? ['<non-JSON body>'] : [],
    stream: isObject ? body.stream : undefined,
    tools: isObject ? toolNames(body) : undefined,
    recovery: bodyText.includes(CHECKPOINT_MARKER),
  };
}

/** Reads a whole request body as bytes. */
export async function readBodyBytes(req) {
  const parts = [];
  for await (const part of req) parts.push(part);
  return Buffer.concat(parts);
}

/** Reads a whole request body as UTF-8 text. */
export async function readBody(req) {
  return (await readBodyBytes(req)).toString('utf8');
}

/** One line per distinct shape, so a report lists each request kind once with a count. */
export function summariseShapes(shapes) {
  const counts = new Map();
  for (const shape of shapes) {
    const line = `${shape.method} ${shape.path} stream=${shape.stream ?? '-'}${shape.recovery ? ' (recovery)' : ''}\n` +
      `      headers: ${shape.headers.join(', ')}\n      body keys: ${shape.bodyKeys.join(', ') || '-'}` +
      (shape.tools ? `\n      tools: ${shape.tools.join(', ')}` : '');
    counts.set(line, (counts.get(line) ?? 0) + 1);
  }
  return [...counts].map(([line, count]) => `    ${count}× ${line}`);
}
