import { isLoopbackHost } from '../config/inbound-config.js';
import { CREDENTIAL_ENV } from '../forward/resolve-upstream-target.js';

/**
 * R8.9: the environment's provider keys go only to requests that
 * authenticated to the gateway. With a token every forwarded request has
 * (the guard refused the rest); on loopback without one, reaching the
 * socket is the authentication (Host and Origin checks keep browsers out).
 * Off loopback without a token (the loud override) nobody has: the keys are
 * withheld and a client must bring its own.
 */
export function withholdEnvironmentKeys(
  settings: { host: string; authToken: string | undefined },
  env: Record<string, string | undefined>,
): Record<string, string | undefined> {
  if (settings.authToken !== undefined || isLoopbackHost(settings.host)) return env;
  const withheld = new Set(Object.values(CREDENTIAL_ENV));
  return Object.fromEntries(Object.entries(env).filter(([name]) => !withheld.has(name)));
}
