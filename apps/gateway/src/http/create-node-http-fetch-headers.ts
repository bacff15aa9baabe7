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
 * runTurn passes a plain record, read in one pass; anything else goes through WHATWG `Headers`.
 */
export function readRequestHeaders(init: RequestInit['headers']): Record<string, string> {
  const forwarded: Record<string, string> = {};
  if (init === undefined) return forwarded;
  let connection: string | undefined;
  const take = (value: string, givenName: string): void => {
    const name = givenName.toLowerCase();
    if (name === 'connection') connection = value;
    if (!NOT_FORWARDED.has(name)) forwarded[name] = value;
  };
  const prototype: unknown = Array.isArray(init) ? Array.prototype : Object.getPrototypeOf(init);
  if (prototype !== Object.prototype && prototype !== null) new Headers(init).forEach(take);
  else for (const name in init as Record<string, string>) take((init as Record<string, string>)[name]!, name);
  if (connection !== undefined) for (const token of connection.split(',')) delete forwarded[token.trim().toLowerCase()];
  return forwarded;
}

/** URL credentials (`http://user:pass@host`) become basic authorization, as node:http (and the lean client before undici) did, unless the caller set one. */
export function addUrlCredentials(headers: Record<string, string>, url: URL): void {
  if (headers.authorization !== undefined || (url.username === '' && url.password === '')) return;
  const credentials = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
  headers.authorization = `Basic ${Buffer.from(credentials).toString('base64')}`;
}
