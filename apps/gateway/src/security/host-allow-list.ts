import { isLoopbackHost } from '../config/inbound-config.js';

/** Addresses that mean "every interface": never a name a client puts in `Host`. */
const WILDCARD_ADDRESSES = new Set(['0.0.0.0', '::', '[::]']);

/** The name part of a `Host` header: `[::1]:8787` → `::1`, `Localhost:8787` → `localhost`. */
export function hostName(header: string): string {
  const value = header.trim().toLowerCase();
  if (value.startsWith('[')) return value.slice(1, value.indexOf(']') === -1 ? undefined : value.indexOf(']'));
  const colon = value.indexOf(':');
  return (colon === -1 ? value : value.slice(0, colon)).replace(/\.$/, '');
}

/**
 * R8.9 DNS rebinding: a page on `evil.example` that re-points its name at
 * 127.0.0.1 still sends `Host: evil.example`. Only loopback names, the listen
 * host and configured names are accepted (as Vite's `server.allowedHosts` and
 * webpack-dev-server's `allowedHosts` do); `*` in the list accepts any.
 */
export function createHostAllowList(listenHost: string, allowedHosts: readonly string[]): (header: string | undefined) => boolean {
  const names = new Set(allowedHosts.map((name) => hostName(name)));
  if (!WILDCARD_ADDRESSES.has(listenHost)) names.add(hostName(listenHost.includes(':') && !listenHost.startsWith('[') ? `[${listenHost}]` : listenHost));
  const acceptsAny = names.has('*');
  return (header) => {
    if (header === undefined || header.trim() === '') return false;
    if (acceptsAny) return true;
    const name = hostName(header);
    return isLoopbackHost(name) || names.has(name);
  };
}
