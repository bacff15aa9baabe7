/**
 * Request headers the transport never forwards: the hop-by-hop fields of
 * RFC 9110 §7.6.1 (and `keep-alive` / `proxy-connection`, which that section
 * names as hop-by-hop in practice), plus `host` and `content-length`, which
 * undici derives from the target URL and the body. undici also refuses
 * `connection`, `keep-alive`, `upgrade`, `transfer-encoding` and `expect`
 * values outright (lib/core/request.js `processHeader`), so forwarding them
 * would fail the request instead of relaying it. `proxy-authorization` is for
 * the gateway's own proxy (HTTPS_PROXY), never for the upstream.
 */
const NOT_FORWARDED: ReadonlySet<string> = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'expect',
  'host',
  'content-length',
]);

/**
 * Every request header given, lower-cased, except the ones above and those the
 * caller's own `connection` header names (hop-by-hop by declaration, RFC 9110 §7.6.1).
 * runTurn passes a plain record; anything else goes through WHATWG `Headers`.
 */
export function readRequestHeaders(init: RequestInit['headers']): Record<string, string> {
  const given: Record<string, string> = {};
  if (init === undefined) return given;
  const prototype: unknown = Array.isArray(init) ? Array.prototype : Object.getPrototypeOf(init);
  if (prototype !== Object.prototype && prototype !== null) {
    new Headers(init).forEach((value, name) => {
      given[name] = value;
    });
  } else {
    for (const [name, value] of Object.entries(init)) given[name.toLowerCase()] = value;
  }
  const declared = given.connection === undefined ? [] : given.connection.split(',').map((token) => token.trim().toLowerCase());
  const forwarded: Record<string, string> = {};
  for (const name in given) {
    if (!NOT_FORWARDED.has(name) && !declared.includes(name)) forwarded[name] = given[name]!;
  }
  return forwarded;
}

/** URL credentials (`http://user:pass@host`) become basic authorization, as node:http (and the lean client before undici) did, unless the caller set one. */
export function addUrlCredentials(headers: Record<string, string>, url: URL): void {
  if (headers.authorization !== undefined || (url.username === '' && url.password === '')) return;
  const credentials = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
  headers.authorization = `Basic ${Buffer.from(credentials).toString('base64')}`;
}
