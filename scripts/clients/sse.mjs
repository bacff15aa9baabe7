// Shared SSE writing for the scripted upstream: one `event:` + `data:` record per
// frame, the way both providers (and codex's own test bodies) frame them.

/** Writes one SSE record. */
export function writeEvent(res, type, data) {
  res.write(`event: ${type}\ndata: ${JSON.stringify(data)}\n\n`);
}

/** Starts a 200 SSE response with the headers the real APIs send. */
export function startSse(res, requestIdHeader, requestId) {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    [requestIdHeader]: requestId,
  });
}

/** Splits text into small deltas so clients see a real stream, not one chunk. */
export function chunks(text, size = 12) {
  const parts = [];
  for (let i = 0; i < text.length; i += size) parts.push(text.slice(i, i + size));
  return parts;
}

let counter = 0;
/** A provider-looking id (`msg_01…`, `resp_…`), unique within this run. */
export function fakeId(prefix) {
  counter += 1;
  return `${prefix}${Date.now().toString(36)}${counter.toString(36).padStart(4, '0')}TG`;
}

/** Writes a JSON body with a request id header. */
export function sendJson(res, status, body, requestIdHeader, requestId) {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    [requestIdHeader]: requestId,
  });
  res.end(text);
}

/** A JSON reply, or for a `cut` script its first half then a clean EOF (a dropped upstream). */
export function sendJsonReply(res, body, cut, requestIdHeader, requestId) {
  if (!cut) return sendJson(res, 200, body, requestIdHeader, requestId);
  const text = JSON.stringify(body);
  res.writeHead(200, { 'content-type': 'application/json', [requestIdHeader]: requestId });
  res.end(text.slice(0, Math.floor(text.length / 2)));
}
