import type { KeySource } from './routing-schema.js';

/** A key source as logs and metrics may show it: the variable's name, never its value (R8.5, R12.1). */
export function describeKeySource(source: KeySource): string {
  if (source.from === 'client') return 'client';
  return source.from === 'env' ? `env:${source.name}` : `client-or-env:${source.name}`;
}

/**
 * How one attempt authenticates (R8.5): with the client's own headers
 * (`passClientAuth`), or with a key the adapter puts in the protocol's usual
 * header (`apiKey`), which lives only in that request's target. `missing`
 * names where a key was looked for, for a 401 in the client's protocol.
 */
export type AttemptCredentials =
  | { kind: 'client' }
  | { kind: 'key'; apiKey: string }
  | { kind: 'missing'; lookedFor: string };

export function resolveAttemptCredentials(source: KeySource, clientSentKey: boolean, env: Record<string, string | undefined>): AttemptCredentials {
  if (source.from !== 'env' && clientSentKey) return { kind: 'client' };
  if (source.from === 'client') return { kind: 'missing', lookedFor: 'the client\'s authorization or x-api-key header' };
  const apiKey = env[source.name];
  if (apiKey === undefined || apiKey.trim() === '') {
    return { kind: 'missing', lookedFor: source.from === 'env' ? `the ${source.name} variable` : `the client's key or the ${source.name} variable` };
  }
  return { kind: 'key', apiKey: apiKey.trim() };
}
